import { fileURLToPath } from 'node:url';
import type { Child, Children } from './children.js';

/**
 * A node process beside vigil that does nothing but time its event loop: the longest wait of its timer
 * past its time, over a stretch, is what the machine alone (its cores, the other processes on
 * them, the hypervisor) does to an event loop with no work of its own. vigil's stall in the same
 * stretch can be no shorter, so the two side by side say how much of a stall is vigil's.
 */
export interface StallSentinel {
  /** Runs `work`; resolves with its result and the sentinel's longest timer delay meanwhile, in ms. */
  during<T>(work: () => Promise<T>): Promise<{ result: T; machineMs: number }>;
}

/**
 * The same instrument as vigil's own stall (src/daemon.ts: a 10 ms loop-delay histogram, less its
 * resolution). A 1 ms timer, as this was first, woke the process a thousand times a second and so
 * was itself a load: beside it, vigil's stalls at 3x rose from a median of 7 ms to 11 ms.
 */
const SCRIPT = `
const { monitorEventLoopDelay } = require('node:perf_hooks');
const RESOLUTION_MS = 10;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();
process.stdin.setEncoding('utf8').on('data', (s) => {
  for (const line of s.split('\\n').filter(Boolean)) {
    if (line === 'report') {
      const max = delay.count ? Math.max(0, delay.max / 1e6 - RESOLUTION_MS) : 0;
      process.stdout.write('sentinel max ' + max.toFixed(1) + '\\n');
    }
    delay.reset();
  }
});
process.stdout.write('sentinel ready\\n');
`;

export async function startSentinel(children: Children): Promise<StallSentinel & { child: Child }> {
  // at the priority of the bench's own processes, as vigil runs
  const child = children.start('stall sentinel', process.execPath, ['-e', SCRIPT], {
    stdio: ['pipe', 'pipe', 'pipe'],
    cwd: fileURLToPath(new URL('.', import.meta.url)),
  });
  await child.waitFor(/^sentinel ready$/m, 10_000);
  return {
    child,
    async during(work) {
      child.send('reset');
      const from = child.output().length;
      const result = await work();
      child.send('report');
      const m = await child.waitFor(/^sentinel max ([\d.]+)$/m, 10_000, from);
      return { result, machineMs: Number(m[1]) };
    },
  };
}
