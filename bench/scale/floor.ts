import { fileURLToPath } from 'node:url';
import type { Child, Children } from './children.js';
import type { Row } from './report.js';
import { FLOOR_NODE_FLAGS, http } from './start-vigil.js';

/**
 * The floor of a collection, measured in the same run as vigil's collections: the requests of one
 * vigil collection are recorded in the estate child (`request-log.ts`), then replayed by a child of
 * their own (`floor-main.ts`: vigil's HTTP client, each body read and SHA-256-digested, nothing
 * else), against the estate as it is (with `vary` on, a replay's bytes differ from the recorded
 * ones: same sizes, same work). vigil's collection CPU is then reported as a multiple of it.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One replay of the recording (what floor-main.ts measures). */
export interface FloorReplay {
  cpu_s: number;
  wall_s: number;
  requests: number;
  bytes: number;
  /** Requests answered otherwise than vigil was (another status, none at all): the floor must fetch the answers vigil did. */
  errors: number;
  /** Answers that are no success, as vigil had them too (optional endpoints a simulator does not serve). */
  non_2xx: number;
}

/** What floor-main.ts prints as `floor <json>`. */
export interface FloorResult {
  replays: FloorReplay[];
  /** Requests and body bytes per endpoint class (path with ids left out), from the last replay. */
  endpoints: Record<string, { requests: number; bytes: number }>;
  /** The first few errors, to say what went wrong. */
  error_samples: string[];
}

/** The floor of one mode: medians over the replays, and the recording's size. */
export interface Floor extends FloorResult {
  recorded: number;
  cpu_s: number;
  wall_s: number;
  bytes: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * Records the requests of the collection `collect` runs (the estate child `sim` prints its request
 * log's control URL), then replays them `replays` times in a floor child; resolves with the floor.
 * An error answer in a replay, or a recording cut at its cap, fails it.
 */
export async function floorOf(children: Children, sim: Child, collect: () => Promise<unknown>, replays = 3): Promise<Floor> {
  const control = (await sim.waitFor(/^request-log (\S+)$/m))[1] ?? '';
  await http(`${control}/start`, { method: 'POST' });
  // The recording is stopped whatever the collection does, then its failure is thrown.
  const failure = await collect().then(
    () => undefined,
    (e: unknown) => e,
  );
  const stopped = (await (await http(`${control}/stop`, { method: 'POST' })).json()) as { file: string; requests: number; truncated: boolean };
  if (failure) throw failure;
  if (stopped.truncated) throw new Error(`the request log was cut at ${stopped.requests} requests`);
  const child = children.start(
    'floor',
    process.execPath,
    [...FLOOR_NODE_FLAGS, '--import', 'tsx', 'bench/scale/floor-main.ts', `--requests=${stopped.file}`, `--replays=${replays}`],
    {
      cwd: ROOT,
    },
  );
  const result = JSON.parse((await child.waitFor(/^floor (\{.*\})$/m, 600_000))[1] ?? '') as FloorResult;
  await children.stop(child);
  const errors = Math.max(0, ...result.replays.map((r) => r.errors));
  if (errors) throw new Error(`the floor had ${errors} error answers of ${stopped.requests}: ${result.error_samples.join('; ')}`);
  return {
    ...result,
    recorded: stopped.requests,
    cpu_s: median(result.replays.map((r) => r.cpu_s)),
    wall_s: median(result.replays.map((r) => r.wall_s)),
    bytes: median(result.replays.map((r) => r.bytes)),
  };
}

/** vigil's collection CPU over the floor's, to two places. */
export const timesFloor = (vigilCpu: number, floor: Floor) => (floor.cpu_s > 0 ? Math.round((vigilCpu / floor.cpu_s) * 100) / 100 : undefined);

/** One line per mode: the floor, and vigil as a multiple of it against the goal (unchanged ≤ 2x, every answer changed ≤ 5x). */
export function floorLine(mode: string, vigilCpu: number, floor: Floor): string {
  const goal = mode === 'unchanged' ? 2 : 5;
  const x = timesFloor(vigilCpu, floor);
  return (
    `  floor, ${mode}: ${floor.recorded} requests, ${(floor.bytes / 2 ** 20).toFixed(1)} MiB, CPU ${floor.cpu_s.toFixed(3)} s ` +
    `(replays ${floor.replays.map((r) => r.cpu_s.toFixed(3)).join(' ')}), wall ${floor.wall_s.toFixed(2)} s; ` +
    `vigil ${vigilCpu.toFixed(3)} s = ${x ?? '?'}x floor (goal <= ${goal}x)`
  );
}

/** Requests and bytes per endpoint class, largest first: where a collection's bytes come from. */
export function floorEndpointRows(size: string, mode: string, floor: Floor): Row[] {
  return Object.entries(floor.endpoints)
    .sort(([, a], [, b]) => b.bytes - a.bytes)
    .map(([endpoint, e]) => ({
      size,
      answers: mode,
      endpoint,
      requests: e.requests,
      KiB: Math.round(e.bytes / 1024),
      'KiB/request': Math.round(e.bytes / e.requests / 102.4) / 10,
    }));
}
