import { fileURLToPath } from 'node:url';
import type { Child, Children } from './children.js';
import type { Estate } from './estate.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts every simulator of the estate at `scale` (`estate-main.ts`, token files in `dir`); resolves once all listen. */
export async function startEstate(children: Children, scale: number, dir: string): Promise<{ child: Child; estate: Estate }> {
  const child = children.start('simulators', process.execPath, ['--import', 'tsx', 'bench/scale/estate-main.ts', `--scale=${scale}`, `--dir=${dir}`], {
    cwd: ROOT,
  });
  const estate = JSON.parse((await child.waitFor(/^estate (\{.*\})$/m))[1] ?? '') as Estate;
  return { child, estate };
}
