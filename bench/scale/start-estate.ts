import { fileURLToPath } from 'node:url';
import type { Child, Children } from './children.js';
import type { Estate, EstateShape } from './estate.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The million-series estate's parts beyond the scaled shape: more servers per cluster, pools of 20,000 members. */
export const MILLION_SHAPE: Partial<EstateShape> = { servers: 11, members: 20_000 };

/** The shape of the estate at `scale` as the benches run it: from 10 on, the million-series one. */
export const shapeAt = (scale: number): Partial<EstateShape> => (scale >= 10 ? MILLION_SHAPE : {});

/**
 * Where the simulators run, as services on other machines would not take vigil's cores: `nice`
 * (1-19) a lower priority; `cpus` a list for `taskset -c` (Linux), the cores they are kept to;
 * `idle` Linux's `SCHED_IDLE` (`chrt --idle 0`), a core only when no other thread wants it; `env`
 * variables (`K=V`) and `flags` node flags their process starts with.
 */
export interface SimulatorPlace {
  nice?: number;
  cpus?: string;
  idle?: boolean;
  env?: readonly string[];
  flags?: readonly string[];
}

/**
 * Starts every simulator of the estate at `scale` (`estate-main.ts`, token files in `dir`), with
 * `shape` overriding parts of the scaled shape, placed as `place` says; resolves once all listen.
 */
export async function startEstate(
  children: Children,
  scale: number,
  dir: string,
  shape: Partial<EstateShape> = {},
  place: SimulatorPlace = {},
): Promise<{ child: Child; estate: Estate }> {
  const args = [
    ...(place.flags ?? []),
    '--import',
    'tsx',
    'bench/scale/estate-main.ts',
    `--scale=${scale}`,
    `--dir=${dir}`,
    `--shape=${JSON.stringify(shape)}`,
  ];
  const command = [
    ...(place.cpus ? ['taskset', '-c', place.cpus] : []),
    ...(place.idle ? ['chrt', '--idle', '0'] : []),
    ...(place.env?.length ? ['env', ...place.env] : []),
    ...['nice', `-n${place.nice ?? 0}`, process.execPath, ...args],
  ];
  const child = children.start('simulators', command[0] ?? 'nice', command.slice(1), { cwd: ROOT });
  const estate = JSON.parse((await child.waitFor(/^estate (\{.*\})$/m))[1] ?? '') as Estate;
  return { child, estate };
}
