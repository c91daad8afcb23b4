import { fileURLToPath } from 'node:url';
import type { Child, Children } from './children.js';
import type { Estate, EstateShape } from './estate.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The million-series estate's parts beyond the scaled shape: more servers per cluster, pools of 20,000 members. */
export const MILLION_SHAPE: Partial<EstateShape> = { servers: 11, members: 20_000 };

/** The shape of the estate at `scale` as the benches run it: from 10 on, the million-series one. */
export const shapeAt = (scale: number): Partial<EstateShape> => (scale >= 10 ? MILLION_SHAPE : {});

/**
 * Starts every simulator of the estate at `scale` (`estate-main.ts`, token files in `dir`), with
 * `shape` overriding parts of the scaled shape; resolves once all listen. With `nice` (1-19) they
 * run at a lower priority, as services on other machines would not take vigil's cores.
 */
export async function startEstate(
  children: Children,
  scale: number,
  dir: string,
  shape: Partial<EstateShape> = {},
  nice = 0,
): Promise<{ child: Child; estate: Estate }> {
  const args = ['--import', 'tsx', 'bench/scale/estate-main.ts', `--scale=${scale}`, `--dir=${dir}`, `--shape=${JSON.stringify(shape)}`];
  const child = children.start('simulators', 'nice', [`-n${nice}`, process.execPath, ...args], { cwd: ROOT });
  const estate = JSON.parse((await child.waitFor(/^estate (\{.*\})$/m))[1] ?? '') as Estate;
  return { child, estate };
}
