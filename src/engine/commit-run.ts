import type { Logger } from 'pino';
import type { Job, PartOutcome } from '../jobs/part.js';
import type { GroupWriter } from '../metrics/render.js';
import { capText } from '../support/cap-text.js';
import { toUpstreamError } from '../upstream/errors.js';
import type { JobStats } from '../telemetry/job-stats.js';
import type { Turns } from '../support/turns.js';

export const groupKey = (job: Pick<Job, 'collector' | 'target'>, part: string) => `${job.collector}/${job.target}/${part}`;

export interface ExecuteDeps {
  store: GroupWriter;
  log: Logger;
  stats: (job: Job) => JobStats;
  /** Re-renders the job's own vigil_collector_* group after its stats changed. */
  publishStats: (job: Job) => void;
  /** Committing a large group encodes megabytes: with turns, it waits for one of its own. */
  turns?: Turns;
  now?: () => number;
}

/**
 * Runs one job and commits what it produced: each part's group replaces the previous one at once,
 * then the job's stats. A run aborted by a reload or shutdown commits nothing.
 */
export function makeExecute(deps: ExecuteDeps) {
  const now = deps.now ?? Date.now;
  return async (job: Job, signal: AbortSignal): Promise<void> => {
    const started = performance.now();
    let outcomes: PartOutcome[];
    try {
      outcomes = await job.run(signal);
    } catch (e) {
      // A job that throws lost track of its parts: all of them go rather than stay stale.
      outcomes = [{ part: 'all', group: new Map(), error: toUpstreamError(e) }];
    }
    await deps.turns?.take();
    if (signal.aborted) return;
    const rendered = outcomes.filter((o) => !o.unchanged);
    const kept = new Set(outcomes.filter((o) => o.unchanged).map((o) => groupKey(job, o.part)));
    deps.store.replaceAll(groupKey(job, ''), new Map(rendered.map((o) => [groupKey(job, o.part), o.group])), kept);
    job.committed?.(outcomes);
    job.afterCommit?.(outcomes);

    const s = deps.stats(job);
    const failed = outcomes.filter((o) => o.error);
    // A failure its part's `_up` reports (a node down) is the upstream's: counted, but the collector is up.
    const own = failed.filter((o) => !o.reportedByUp);
    const wasUp = s.up;
    s.runs += 1;
    s.lastDurationSeconds = (performance.now() - started) / 1000;
    s.lastRunSeconds = now() / 1000;
    s.up = own.length === 0;
    s.failing = new Set(own.map((o) => o.error!.reason));
    s.failingProxies = new Set(own.flatMap((o) => (o.error!.proxy === undefined ? [] : [o.error!.proxy])));
    if (s.up) {
      s.lastSuccessSeconds = s.lastRunSeconds;
      delete s.lastError;
    }
    for (const o of failed) {
      const err = o.error!;
      // Capped again where kept: a message can be rewritten after the error was made.
      const message = capText(err.message);
      s.failures.set(err.reason, (s.failures.get(err.reason) ?? 0) + 1);
      // A part is named after its item (a node's address, as an answer gave it): capped like the message.
      const part = capText(o.part);
      if (!o.reportedByUp) s.lastError = { reason: err.reason, message, part };
      deps.log.warn({ collector: job.collector, target: job.target, part, reason: err.reason, err: message }, 'collection failed');
    }
    if (s.up && wasUp === false) deps.log.info({ collector: job.collector, target: job.target }, 'collection recovered');
    deps.publishStats(job);
  };
}
