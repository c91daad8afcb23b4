import { fileURLToPath } from 'node:url';
import type { Child, Children } from './children.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts the bare server (`ceiling.ts`) answering the bytes of `bodyFile`; resolves with its /metrics URL. */
export async function startCeiling(children: Children, bodyFile: string): Promise<{ child: Child; url: string }> {
  const child = children.start('ceiling', process.execPath, ['--import', 'tsx', 'bench/scale/ceiling.ts', `--body=${bodyFile}`], { cwd: ROOT });
  const m = await child.waitFor(/listening (\S+)/);
  return { child, url: `${m[1]}/metrics` };
}
