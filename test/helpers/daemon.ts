import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseConfig } from '../../src/config/load.js';
import { Daemon } from '../../src/daemon.js';
import { createLogger } from '../../src/support/logger.js';
import { createProcessMetrics } from '../../src/metrics/process-metrics.js';
import { createApp, listen } from '../../src/server.js';
import { alertPages } from '../../src/server/ui-routes.js';
import { AlertSinkService, type AlertSinkDeps } from '../../src/sink/service.js';
import { parseExposition } from './exposition.js';
import { tempDir } from './temp-dir.js';
import { waitFor } from './wait.js';

export interface TestDaemon {
  daemon: Daemon;
  url: string;
  /** Every log line so far, parsed. */
  logs(): Array<Record<string, unknown>>;
  /** Every log line so far, as written. */
  rawLogs(): string;
  /** Runs every job now and waits for all of them. */
  collect(): Promise<void>;
  /** GET /metrics, raw text. */
  scrape(): Promise<string>;
  /** GET /metrics, parsed into `name{labels}` → value. */
  metrics(): Promise<Map<string, number>>;
  /** Applies a new config from YAML (same path as a reload); one that turns the sink on returns once its store opened, as a start does. */
  reload(yaml: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A file under a fresh temp dir, for token files referenced by test configs: kept until the test
 * file ends, as a daemon started in one test may read it again (a reload) in the next.
 */
export function tempFile(name: string, content: string): string {
  const dir = tempDir('vigil-test-', { for: 'file' });
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/**
 * vigil in-process on 127.0.0.1:<free port>, with schedules that never fire on their own during a
 * test (jobs run at start and when `collect()` is called), unless the config sets them. The first
 * collection joins the start's runs still in flight, so a job that answered fast has run twice and
 * the others once; with `settle` it waits for them, and every job has run exactly twice. The alert
 * sink's store opens while the jobs run; the daemon is returned once it has, unless `awaitSink` is false.
 */
export async function startTestDaemon(
  yaml: string,
  opts: {
    collectionThread?: boolean;
    sink?: Pick<AlertSinkDeps, 'storeKind' | 'reopenMs'>;
    /** Whether to return only once the sink's store has opened (or failed to); the jobs never wait for it. Default true. */
    awaitSink?: boolean;
    collectMinInterval?: number;
    settle?: boolean;
  } = {},
): Promise<TestDaemon> {
  const out = new PassThrough();
  const lines: string[] = [];
  out.on('data', (c: Buffer) => lines.push(...c.toString().split('\n').filter(Boolean)));
  const log = createLogger('debug', 'json', out);
  const daemon = new Daemon(log, opts.collectionThread ? { collectionThread: { level: 'debug', format: 'json', out } } : {});
  const sink = new AlertSinkService({ metrics: daemon.store, log, listenAddress: '127.0.0.1:0', pages: alertPages({ daemon, version: 'test' }), ...opts.sink });
  daemon.use(sink);
  const app = createApp({
    daemon,
    reload: () => Promise.resolve(),
    processMetrics: createProcessMetrics(),
    log,
    routes: sink.routes,
    enableLifecycle: true,
    ...(opts.collectMinInterval !== undefined ? { collectMinInterval: opts.collectMinInterval } : {}),
  });
  const http = await listen(app, '127.0.0.1:0');
  await daemon.apply(parseConfig(yaml, 'test.yml', process.env));
  const awaitSink = opts.awaitSink ?? true;
  if (awaitSink) await sink.started();
  if (opts.settle)
    await waitFor('every job to finish its first run', async () => (daemon.readiness().pending.length === 0 ? true : undefined), 20_000, { everyMs: 10 });
  await daemon.collectNow({ force: true });
  const scrape = async () => {
    // The sink renders its series at most once a second: a test reads what it changed at once.
    await sink.renderPending();
    daemon.store.snapshot();
    const res = await fetch(`${http.url}/metrics`);
    return res.text();
  };
  return {
    daemon,
    url: http.url,
    logs: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
    rawLogs: () => lines.join('\n'),
    collect: async () => void (await daemon.collectNow({ force: true })),
    scrape,
    metrics: async () => parseExposition(await scrape()),
    reload: async (y) => {
      await daemon.reload(async () => parseConfig(y, 'test.yml', process.env));
      if (awaitSink) await sink.started();
    },
    close: async () => {
      await http.close();
      await daemon.stop();
    },
  };
}
