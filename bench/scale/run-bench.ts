import { rmSync } from 'node:fs';
import type { Children } from './children.js';

/**
 * Runs a benchmark's body the way each of them ends: every child ended by PID and the scratch
 * directory removed, whether the body succeeds, throws or is interrupted (SIGINT, SIGTERM); exits
 * 0, 1 on failure, 130 when interrupted. `cleanup` is the benchmark's own last step.
 */
export async function runBench(name: string, children: Children, scratch: string, body: () => Promise<void>, cleanup = () => {}): Promise<never> {
  const done = () => {
    rmSync(scratch, { recursive: true, force: true });
    cleanup();
  };
  const interrupted = () => {
    void children.stopAll().then(() => {
      done();
      process.exit(130);
    });
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  let failed = false;
  try {
    await body();
  } catch (e) {
    failed = true;
    process.stderr.write(`${name} failed: ${(e as Error).stack ?? String(e)}\n`);
  } finally {
    await children.stopAll();
    done();
  }
  process.exit(failed ? 1 : 0);
}
