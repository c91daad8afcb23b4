import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../support/logger.js';
import { COLLECTION_FAMILIES } from '../collectors/index.js';
import { deflatePiece } from '../metrics/gzip-stream.js';
import { SnapshotStore, deflateOnce } from '../metrics/snapshot-store.js';
import { yieldToMainThread } from '../support/threads.js';
import { idleCollector, idleSteps } from '../support/idle-collect.js';
import { BodyPublisher } from './body.js';
import { CollectionEngine } from './collection-engine.js';
import type { GroupWriter } from '../metrics/render.js';
import type { Call, Note, ThreadData } from './messages.js';

/**
 * Entry of the collection thread: runs the engine and its snapshot store, and sends the main
 * thread, which serves them, every change of the body and of the targets' state.
 */
const port = parentPort;
if (!port) throw new Error('collection thread started outside a worker thread');
const data = workerData as ThreadData;

// Scrapes are answered by the main thread: it gets a core first when the machine has none free.
yieldToMainThread();

const send = (n: Note, transfer: ArrayBuffer[] = []) => port.postMessage(n, transfer);

// Laid out when the publisher reads it (at most every SEND_INTERVAL_MS), not after every commit.
const store = new SnapshotStore(COLLECTION_FAMILIES, deflateOnce, { layOut: 'when-read' });
/**
 * Each new piece is compressed here, at this thread's lower priority and synchronously
 * (not on libuv's pool, which is the whole process's and runs at the main thread's priority): the
 * first gzip scrape after a change then compresses nothing.
 */
const body = new BodyPublisher(store, send, deflatePiece);

/**
 * How often, at most, the body and the targets' state go over while jobs finish: a 3x estate's 130
 * jobs finishing one by one each changed the same runs (the jobs' own series), and sending each
 * change moved ~30 MB a collection where one send per interval moves a tenth of it. A call's
 * reply still comes after everything it changed (`sendChanges` runs first).
 */
const SEND_INTERVAL_MS = 200;

/**
 * The body first, so a target's state never says more than the body served with it. Only the
 * targets' views that changed are sent.
 */
let dirty: Set<string> | 'all' | undefined;
let timer: NodeJS.Timeout | undefined;
let sentAt = -Infinity;
/** Each publish is a sign of work; once none has come for a while, the thread gives its young generation back. */
const worked = idleCollector(idleSteps('collection'));
const sendChanges = () => {
  worked();
  clearTimeout(timer);
  timer = undefined;
  sentAt = performance.now();
  body.publish();
  const changed = dirty;
  dirty = undefined;
  if (changed === undefined) return;
  const pending = engine.pending();
  if (changed === 'all') send({ op: 'state', targets: engine.targets(), pending });
  else send({ op: 'changed', targets: [...changed].flatMap((k) => engine.target(k) ?? []), pending });
};
const soon = () => {
  timer ??= setTimeout(sendChanges, Math.max(0, sentAt + SEND_INTERVAL_MS - performance.now()));
};
const stateChanged = (jobKey?: string) => {
  soon();
  if (jobKey === undefined) dirty = 'all';
  else if (dirty !== 'all') dirty = (dirty ?? new Set<string>()).add(jobKey);
};
const writer: GroupWriter = {
  replace: (key, group) => (store.replace(key, group), soon()),
  replaceLater: (key, render) => (store.replaceLater(key, render), soon()),
  replaceAll: (prefix, groups, kept) => (store.replaceAll(prefix, groups, kept), soon()),
  removePrefix: (prefix) => (store.removePrefix(prefix), soon()),
};

const logLines = { write: (line: string) => (send({ op: 'log', line }), true) } as unknown as NodeJS.WritableStream;
const engine = new CollectionEngine(writer, createLogger(data.level, data.format, logLines), stateChanged);

async function answer(c: Call): Promise<Note> {
  try {
    switch (c.call) {
      case 'apply':
        await engine.applyJobs(c.config);
        return { id: c.id, op: 'reply', ok: null };
      case 'collect':
        return { id: c.id, op: 'reply', ok: await engine.collectNow({ force: c.force }) };
      case 'stop':
        await engine.stop();
        return { id: c.id, op: 'reply', ok: null };
    }
  } catch (e) {
    return { id: c.id, op: 'reply', error: (e as Error).message };
  }
}

port.on('message', (c: Call) => {
  void answer(c).then((reply) => {
    // What the call changed is known to the main thread before it hears the call is done.
    sendChanges();
    send(reply);
  });
});
