import { fileURLToPath } from 'node:url';
import type { Child, Children } from './children.js';
import type { Estate, EstateShape } from './estate.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Starts every simulator of the estate at `scale` (`estate-main.ts`, token files in `dir`), with
 * `shape` overriding parts of the scaled shape; resolves once all listen.
 */
export async function startEstate(children: Children, scale: number, dir: string, shape: Partial<EstateShape> = {}): Promise<{ child: Child; estate: Estate }> {
  const args = ['--import', 'tsx', 'bench/scale/estate-main.ts', `--scale=${scale}`, `--dir=${dir}`, `--shape=${JSON.stringify(shape)}`];
  const child = children.start('simulators', process.execPath, args, {
    cwd: ROOT,
  });
  const estate = JSON.parse((await child.waitFor(/^estate (\{.*\})$/m))[1] ?? '') as Estate;
  return { child, estate };
}
