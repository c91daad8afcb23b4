import { fileURLToPath } from 'node:url';
import type { Child, Children } from './children.js';
import type { Row } from './report.js';
import { FLOOR_NODE_FLAGS, http } from './start-vigil.js';

/**
 * The floor of a collection, measured in the same run as vigil's collections: the requests of one
 * vigil collection are recorded in the estate child (`request-log.ts`), then replayed by a child of
 * their own (`floor-main.ts`: vigil's HTTP client, each body read and SHA-256-digested, nothing
 * else), against the estate as it is (with `vary` on, a replay's bytes differ from the recorded
 * ones: same sizes, same work). The replays alternate with vigil's collections (`floorTurns`), and
 * vigil's collection CPU is reported as a multiple of the floor's turn by turn: the median of each
 * collection over the replay that follows it.
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

/** Replays of the floor made on demand, turn about with vigil's collections (`floorTurns`). */
export interface FloorTurns {
  /** One replay of the recorded requests, now; resolves with what it cost. */
  replay(): Promise<FloorReplay>;
  /** Ends the floor child; resolves with the floor of the replays made. An error answer in any fails it. */
  end(): Promise<Floor>;
}

/**
 * Records the requests of the collection `collect` runs (the estate child `sim` prints its request
 * log's control URL), then starts a floor child that replays them once, uncounted, to open its
 * connections and warm up, and then once per `replay()`. The caller runs its own collections between
 * the replays, so vigil and the floor take turns on the machine: a slower stretch of a noisy machine
 * weighs on both sides of a turn, not on one side of the run. A recording cut at its cap fails it.
 */
export async function floorTurns(children: Children, sim: Child, collect: () => Promise<unknown>): Promise<FloorTurns> {
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
    [...FLOOR_NODE_FLAGS, '--import', 'tsx', 'bench/scale/floor-main.ts', `--requests=${stopped.file}`, '--turns'],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  await child.waitFor(/^floor ready$/m, 600_000);
  const asked = async (line: string | undefined, re: RegExp): Promise<string> => {
    const from = child.output().length;
    child.send(line);
    return (await child.waitFor(re, 600_000, from))[1] ?? '';
  };
  return {
    replay: async () => JSON.parse(await asked('replay', /^replay (\{.*\})\n/m)) as FloorReplay,
    end: async () => {
      const result = JSON.parse(await asked(undefined, /^floor (\{.*\})\n/m)) as FloorResult;
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
    },
  };
}

/** A collection's CPU over a replay's, to two places. */
const ratio = (vigilCpu: number, floorCpu: number) => (floorCpu > 0 ? Math.round((vigilCpu / floorCpu) * 100) / 100 : undefined);

/** Each turn's ratio: the collection's CPU over the replay's that followed it. */
export const turnRatios = (vigilCpu: readonly number[], floor: Floor): number[] =>
  vigilCpu.flatMap((cpu, i) => {
    const r = ratio(cpu, floor.replays[i]?.cpu_s ?? 0);
    return r === undefined ? [] : [r];
  });

/** vigil's collection CPU as a multiple of the floor's: the median of the turns' ratios. */
export const timesFloor = (vigilCpu: readonly number[], floor: Floor) => {
  const ratios = turnRatios(vigilCpu, floor);
  return ratios.length ? median(ratios) : undefined;
};

/** One line per mode: the floor, and vigil as a multiple of it against the goal (unchanged ≤ 2x, every answer changed ≤ 5x). */
export function floorLine(mode: string, vigilCpu: readonly number[], floor: Floor): string {
  const goal = mode === 'unchanged' ? 2 : 5;
  return (
    `  floor, ${mode}: ${floor.recorded} requests, ${(floor.bytes / 2 ** 20).toFixed(1)} MiB, CPU ${floor.cpu_s.toFixed(3)} s ` +
    `(replays ${floor.replays.map((r) => r.cpu_s.toFixed(3)).join(' ')}), wall ${floor.wall_s.toFixed(2)} s; ` +
    `vigil ${vigilCpu.map((c) => c.toFixed(3)).join(' ')} s, turn by turn ${turnRatios(vigilCpu, floor).join(' ')} = ` +
    `${timesFloor(vigilCpu, floor) ?? '?'}x floor (goal <= ${goal}x)`
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
