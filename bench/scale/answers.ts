import { setTimeout as sleep } from 'node:timers/promises';
import type { CollectSummary } from '../../src/daemon.js';
import { YOUNG_RELEASE_MS } from '../../src/support/idle-collect.js';
import { rssBytes } from './children.js';
import { timesFloor, turnRatios, type Floor, type FloorTurns } from './floor.js';
import type { Row } from './report.js';
import type { StallSentinel } from './stall-sentinel.js';
import type { Vigil } from './start-vigil.js';

/** One way of the estate's answers between collections, measured over a few collections in a row. */
export interface AnswersMode {
  mode: 'unchanged' | 'every answer changes';
  collections: CollectSummary[];
  /** Answers vigil found byte-identical to the last and reused, per collection (vigil_upstream_unchanged_answers_total). */
  reused_per_collection: number;
  rss_after_bytes: number;
  /** The RSS once vigil has been idle for `REST_MS` after the collections: what it holds between collections. */
  rss_at_rest_bytes: number;
  /** The same answers fetched and digested by a bare client (floor.ts), when measured: its replays, one after each collection. */
  floor?: Floor;
  /**
   * When measured, the longest timer delay of an idle process beside vigil during each collection
   * (stall-sentinel.ts), in ms: what the machine alone does to an event loop in the same stretch,
   * the floor of vigil's stall as the floor's replays are of its CPU.
   */
  machine_stall_ms?: number[];
}

/** What a mode's collections are measured against, when given: the floor's replays, the idle process's timer. */
export interface Against {
  floor?: () => Promise<FloorTurns>;
  sentinel?: StallSentinel;
}

/**
 * How long after its collections vigil is left idle before its RSS at rest is read: past the time
 * its threads give their young generations back (src/support/idle-collect.ts), and the second or
 * two V8 takes to return the pages.
 */
export const REST_MS = YOUNG_RELEASE_MS + 3_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const ms = (seconds: number) => Math.round(seconds * 1e4) / 10;

/** vigil_upstream_unchanged_answers_total summed over targets and endpoints, from vigil's own /metrics. */
async function reusedSoFar(vigil: Vigil): Promise<number> {
  const text = (await vigil.metrics()).toString();
  let sum = 0;
  for (const m of text.matchAll(/^vigil_upstream_unchanged_answers_total\{[^}]*\} (\S+)$/gm)) sum += Number(m[1]);
  return sum;
}

/**
 * `n` collections in a row, and when `floor` is given, the floor's turns: it records one collection
 * more first (uncounted), then a replay of the floor follows each counted collection.
 */
async function collections(vigil: Vigil, mode: AnswersMode['mode'], n: number, { floor, sentinel }: Against): Promise<AnswersMode> {
  const turns = await floor?.();
  const before = await reusedSoFar(vigil);
  const runs: CollectSummary[] = [];
  const machine: number[] = [];
  let rss_after_bytes = 0;
  try {
    for (let i = 0; i < n; i++) {
      if (sentinel) {
        const { result, machineMs } = await sentinel.during(() => vigil.collect());
        runs.push(result);
        machine.push(machineMs);
      } else runs.push(await vigil.collect());
      // vigil's RSS right after its last collection, before the floor's replay lets it idle
      if (i === n - 1) rss_after_bytes = rssBytes(vigil.child.pid);
      await turns?.replay();
    }
  } catch (e) {
    // The floor child ends here too, so a failure is vigil's and not a child left behind; an error
    // of the floor's own at its end would hide vigil's, which is the one thrown.
    await turns?.end().catch(() => undefined);
    throw e;
  }
  const measured: Floor | undefined = await turns?.end();
  const reused_per_collection = Math.round((await reusedSoFar(vigil)) - before) / n;
  await sleep(REST_MS);
  return {
    mode,
    collections: runs,
    reused_per_collection,
    rss_after_bytes,
    rss_at_rest_bytes: rssBytes(vigil.child.pid),
    ...(measured ? { floor: measured } : {}),
    ...(sentinel ? { machine_stall_ms: machine } : {}),
  };
}

/**
 * A collection both ways, in one run: the estate's answers as they are between collections (the
 * simulators answer the same bytes while nothing changes, the common case), then every answer
 * changed (the simulators' `vary` fault: each answer's bytes differ from the last, so each takes the
 * whole path, the worst case). `vary` turns the fault on and off. `against.floor`, when given, starts
 * each mode's floor (`floorTurns` of floor.ts) with the answers that way, to take turns with its
 * collections; `against.sentinel` times an idle process's event loop during each collection.
 */
export async function bothWays(vigil: Vigil, vary: (on: boolean) => Promise<unknown>, n: number, against: Against = {}): Promise<AnswersMode[]> {
  const unchanged = await collections(vigil, 'unchanged', n, against);
  await vary(true);
  try {
    return [unchanged, await collections(vigil, 'every answer changes', n, against)];
  } finally {
    await vary(false);
  }
}

/**
 * One row per size and mode: a collection's CPU (median), per series, the RSS right after and at
 * rest (`REST_MS` later), the stall (the main thread's longest event-loop delay) and, when measured,
 * an idle process's beside it in the same collections (the machine's part of it), and when measured
 * the floor's CPU (median of its replays) and vigil's as a multiple of it: the median of the turns'
 * ratios, each collection over the replay after it, and each turn's (goal: unchanged <= 2x, every
 * answer changed <= 5x).
 */
export function answersRows(size: string, series: number, modes: readonly AnswersMode[], rssPeakBytes: number): Row[] {
  return modes.map((m) => {
    const cpus = m.collections.map((c) => c.cpu_seconds);
    const cpu = median(cpus);
    return {
      size,
      series,
      answers: m.mode,
      'reused/collection': m.reused_per_collection,
      requests: median(m.collections.map((c) => c.upstream_requests)),
      'collection CPU s': cpu.toFixed(2),
      'us/series': Math.round((cpu / series) * 1e6 * 10) / 10,
      'wall s': median(m.collections.map((c) => c.wall_seconds)).toFixed(2),
      'RSS after MiB': Math.round((m.rss_after_bytes / 2 ** 20) * 10) / 10,
      'RSS at rest MiB': Math.round((m.rss_at_rest_bytes / 2 ** 20) * 10) / 10,
      'RSS peak MiB': Math.round((rssPeakBytes / 2 ** 20) * 10) / 10,
      'stall max ms': Math.max(...m.collections.map((c) => ms(c.event_loop_delay_max_seconds))),
      'stall median ms': ms(median(m.collections.map((c) => c.event_loop_delay_max_seconds))),
      ...(m.machine_stall_ms?.length
        ? { 'idle process stall max ms': Math.max(...m.machine_stall_ms), 'idle process stall median ms': median(m.machine_stall_ms) }
        : {}),
      ...(m.floor
        ? {
            'floor requests': m.floor.recorded,
            'floor CPU s': m.floor.cpu_s.toFixed(3),
            '× floor': timesFloor(cpus, m.floor),
            '× floor by turn': turnRatios(cpus, m.floor).join(' '),
          }
        : {}),
    };
  });
}
