import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../log/logger.js';
import type { RenderedGroup } from '../metrics/render.js';
import { yieldToMainThread } from '../offload/start-thread.js';
import { ownedBuffers } from '../offload/transfer.js';
import { CollectionEngine, type MetricsSink } from './engine.js';
import type { Call, Note, ThreadData } from './messages.js';

/**
 * Entry of the collection thread: runs the engine, and sends every change of the store and of the
 * targets' state to the main thread, which serves them.
 */
const port = parentPort;
if (!port) throw new Error('collection thread started outside a worker thread');
const data = workerData as ThreadData;

// Scrapes are answered by the main thread: it gets a core first when the machine has none free.
yieldToMainThread();

const send = (n: Note, transfer: ArrayBuffer[] = []) => port.postMessage(n, transfer);
/**
 * A rendered group's bytes are moved to the main thread, not copied: once committed, nothing here
 * reads them again (a job's outcomes are done with after its commit).
 */
const bytesOf = (groups: Iterable<RenderedGroup>) => ownedBuffers([...groups].flatMap((g) => [...g.values()]));
const sink: MetricsSink = {
  replace: (key, group) => send({ op: 'replace', key, group }, bytesOf([group])),
  replaceAll: (prefix, groups) => send({ op: 'replaceAll', prefix, groups }, bytesOf(groups.values())),
  removePrefix: (prefix) => send({ op: 'removePrefix', prefix }),
};

/**
 * The targets' state goes over once per turn, whatever number of jobs finished in it, and only the
 * views that changed (a 3x estate has 130 jobs; the whole list each time was work for nothing).
 */
let dirty: Set<string> | 'all' | undefined;
const sendState = () => {
  const changed = dirty;
  dirty = undefined;
  if (changed === undefined) return;
  const pending = engine.pending();
  if (changed === 'all') send({ op: 'state', targets: engine.targets(), pending });
  else send({ op: 'changed', targets: [...changed].flatMap((k) => engine.target(k) ?? []), pending });
};
const stateChanged = (jobKey?: string) => {
  if (dirty === undefined) setImmediate(sendState);
  if (jobKey === undefined) dirty = 'all';
  else if (dirty !== 'all') dirty = (dirty ?? new Set<string>()).add(jobKey);
};

const logLines = { write: (line: string) => (send({ op: 'log', line }), true) } as unknown as NodeJS.WritableStream;
const engine = new CollectionEngine(sink, createLogger(data.level, data.format, logLines), stateChanged);

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
    sendState();
    send(reply);
  });
});
