/**
 * How long /readyz takes to say that the SQLite store's thread died, and to say ready again once a
 * new thread has opened the file. The thread is run out of memory (a heap of 32 MB asked for a page
 * of 4 MB bodies, as in test/sink/sqlite-thread.test.ts) with no webhook or read in flight, while
 * /readyz is asked every `--every-ms` ms. Each death in a fresh vigil shows the first restart; then
 * one vigil's thread is killed again and again, to show the restarts backing off.
 *
 *   node --import tsx bench/sink-store-thread-death.ts [--fresh=3] [--repeat=4] [--every-ms=5]
 *
 * vigil (its daemon, HTTP server and alert sink) runs in this process, with its real SQLite store thread.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { AlertStoreConfig } from '../src/config-fields/alert-sink.js';
import { parseConfig } from '../src/config/load.js';
import { Daemon } from '../src/daemon.js';
import { createProcessMetrics } from '../src/metrics/process-metrics.js';
import { createApp, listen } from '../src/server.js';
import { AlertSinkService } from '../src/sink/service.js';
import type { AlertStore } from '../src/sink/store/alert-store.js';
import { storeKind, type StoreKind } from '../src/sink/store/open-store.js';
import { SqliteThreadStore } from '../src/sink/store/sqlite-thread-store.js';
import { createLogger } from '../src/support/logger.js';
import { notification, post } from '../test/helpers/alertmanager.js';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const FRESH = arg('fresh', 3);
const REPEAT = arg('repeat', 4);
const EVERY_MS = arg('every-ms', 5);
const round = (n: number) => Math.round(n);

interface Vigil {
  url: string;
  /** The thread store the sink's guard wraps. */
  store: AlertStore;
  close(): Promise<void>;
}

/** vigil with its sink on a store whose thread has a small heap, holding twelve notifications of 4 MB. */
async function start(): Promise<Vigil> {
  let inner: AlertStore | undefined;
  const kind = (cfg: AlertStoreConfig): StoreKind => ({
    ...storeKind(cfg),
    open: async (onLost, onBack) =>
      (inner = await SqliteThreadStore.open(
        { path: cfg.path as string, resourceLimits: { maxOldGenerationSizeMb: 32 } },
        { lost: onLost, back: onBack ?? (() => undefined) },
      )),
  });
  const log = createLogger('error', 'json', new PassThrough());
  const daemon = new Daemon(log);
  const sink = new AlertSinkService({ metrics: daemon.store, log, listenAddress: '127.0.0.1:0', storeKind: kind });
  daemon.use(sink);
  const http = await listen(
    createApp({ daemon, reload: () => Promise.resolve(), processMetrics: createProcessMetrics(), log, routes: sink.routes }),
    '127.0.0.1:0',
  );
  const path = join(mkdtempSync(join(tmpdir(), 'vigil-bench-death-')), 'alerts.db');
  await daemon.apply(parseConfig(`alert_sink:\n  store: { path: ${path} }\n`, 'bench.yml', {}));
  await sink.started();
  for (let i = 0; i < 12; i++) {
    const res = await post(http.url, { ...notification({ groupKey: `g${i}`, alerts: [{ fingerprint: `f${i}` }] }), padding: 'x'.repeat(4_000_000) });
    if (res.status !== 200) throw new Error(`notification ${i} answered ${res.status}`);
  }
  return {
    url: http.url,
    store: inner!,
    close: async () => {
      await http.close();
      await daemon.stop();
    },
  };
}

/** Kills the thread once; the ms from its death to /readyz 503, and to /readyz 200 again. */
async function death(v: Vigil): Promise<{ to_503_ms: number; to_ready_ms: number }> {
  const seen: Array<{ at: number; status: number }> = [];
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const res = await fetch(`${v.url}/readyz`);
      await res.arrayBuffer();
      seen.push({ at: performance.now(), status: res.status });
      if (seen.length > 1 && res.status === 200 && seen.some((s) => s.status === 503)) polling = false;
      await new Promise((r) => setTimeout(r, EVERY_MS));
    }
  })();
  const died = await v.store.notifications({ limit: 100 }).then(
    () => Promise.reject(new Error('the store thread did not run out of memory')),
    () => performance.now(),
  );
  await poll;
  const down = seen.find((s) => s.status === 503);
  const up = seen.find((s) => s.status === 200 && s.at > (down?.at ?? died));
  return { to_503_ms: round((down?.at ?? NaN) - died), to_ready_ms: round((up?.at ?? NaN) - died) };
}

const firsts = [];
for (let i = 0; i < FRESH; i++) {
  const v = await start();
  firsts.push(await death(v));
  await v.close();
}
console.log(JSON.stringify({ first_death_in_a_fresh_vigil: firsts }));

const v = await start();
const repeated = [];
for (let i = 0; i < REPEAT; i++) {
  // The file still holds the large bodies: each new thread dies on the same page read.
  repeated.push(await death(v));
}
await v.close();
console.log(JSON.stringify({ deaths_in_a_row_one_vigil: repeated }));
