import { fileURLToPath } from 'node:url';
import type { Child, Children } from './children.js';

/**
 * A node process beside vigil that does nothing but run a 1 ms timer: the longest wait of that timer
 * past its time, over a stretch, is what the machine alone (its cores, the other processes on
 * them, the hypervisor) does to an event loop with no work of its own. vigil's stall in the same
 * stretch can be no shorter, so the two side by side say how much of a stall is vigil's.
 */
export interface StallSentinel {
  /** Runs `work`; resolves with its result and the sentinel's longest timer delay meanwhile, in ms. */
  during<T>(work: () => Promise<T>): Promise<{ result: T; machineMs: number }>;
}

const SCRIPT = `
const now = () => Number(process.hrtime.bigint()) / 1e6;
let last = now(), max = 0;
setInterval(() => { const t = now(); max = Math.max(max, t - last - 1); last = t; }, 1);
process.stdin.setEncoding('utf8').on('data', (s) => {
  for (const line of s.split('\\n').filter(Boolean)) {
    if (line === 'report') process.stdout.write('sentinel max ' + max.toFixed(1) + '\\n');
    max = 0;
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
