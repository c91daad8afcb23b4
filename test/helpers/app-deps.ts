import { PassThrough } from 'node:stream';
import { SnapshotStore } from '../../src/metrics/snapshot-store.js';
import type { ServerDeps } from '../../src/server.js';
import { createLogger } from '../../src/support/logger.js';

/** What `createApp` needs, for a test of the HTTP surface alone: an empty snapshot, no targets, no collection, logs dropped. */
export function appDeps(more: Partial<ServerDeps> = {}): ServerDeps {
  const store = new SnapshotStore([]);
  return {
    daemon: {
      snapshot: (format) => store.snapshot(format),
      readiness: () => ({ ready: true, pending: [] }),
      targets: () => [],
      collectNow: () => Promise.reject(new Error('no collection here')),
    },
    reload: () => Promise.resolve(),
    processMetrics: () => Promise.resolve(''),
    log: createLogger('error', 'json', new PassThrough()),
    ...more,
  };
}
