import { parentPort, workerData } from 'node:worker_threads';
import { yieldToMainThread } from '../../support/threads.js';
import { checkSender, type IncomingNotification } from './alert-store.js';
import { SqliteAlertStore, type SqliteStoreOptions } from './sqlite-store.js';
import { toWire, type ReadCall, type StoreReply, type StoreRequest } from './sqlite-thread-protocol.js';

/**
 * Entry of the SQLite store thread: the one connection to the file, so that no SQLite call (a slow
 * write, a lock wait, a check of the file at open) ever holds the main thread's event loop. It
 * answers each request of SqliteThreadStore with the store's own answer or error.
 */
const port = parentPort;
if (!port) throw new Error('SQLite store thread started outside a worker thread');

// The sink's writes can wait for a core; the main thread's scrapes cannot.
yieldToMainThread();

const answer = (r: StoreReply) => port.postMessage(r);
let store: SqliteAlertStore | undefined;
try {
  store = new SqliteAlertStore(workerData as SqliteStoreOptions);
  answer({ id: 0, ok: null });
} catch (e) {
  answer({ id: 0, error: toWire(e) });
}

/** Notifications whose alerts are still arriving, in slices (see SqliteThreadStore.record), or waiting to be committed: each with its sender's presence. */
const arriving = new Map<number, { n: IncomingNotification; total: number; gone: AbortController }>();
const gone = new Map<number, AbortController>();

async function run(s: SqliteAlertStore, m: StoreRequest): Promise<{ ok: unknown } | undefined> {
  switch (m.call) {
    case 'record':
      arriving.set(m.id, { n: m.n, total: m.total, gone: new AbortController() });
      return complete(s, m.id);
    case 'more':
      arriving.get(m.id)?.n.payload.alerts.push(...m.alerts);
      return complete(s, m.id);
    case 'cancel':
      return cancel(m.id);
    case 'close':
      await s.close();
      return { ok: null };
    default:
      return { ok: await (s[m.call satisfies ReadCall] as (...a: unknown[]) => Promise<unknown>).apply(s, m.args) };
  }
}

/** Records a notification once all of its alerts are here (undefined until then). */
async function complete(s: SqliteAlertStore, id: number): Promise<{ ok: unknown } | undefined> {
  const a = arriving.get(id);
  if (!a || a.n.payload.alerts.length < a.total) return undefined;
  arriving.delete(id);
  gone.set(id, a.gone);
  try {
    return { ok: await s.record(a.n, a.gone.signal) };
  } finally {
    gone.delete(id);
  }
}

/** Drops a notification still arriving (answered as cancelled now), or tells the store its sender left. */
function cancel(id: number): undefined {
  const a = arriving.get(id);
  if (!a) return void gone.get(id)?.abort();
  a.gone.abort();
  checkSender(a.gone.signal);
}

port.on('message', (m: StoreRequest) => {
  const s = store;
  if (!s) return answer({ id: m.id, error: { message: 'the alert store is not open', kind: 'unavailable', reason: 'cannot_open' } });
  run(s, m).then(
    (r) => r && answer({ id: m.id, ok: r.ok }),
    (e: unknown) => {
      arriving.delete(m.id);
      answer({ id: m.id, error: toWire(e) });
    },
  );
});
