import { readdirSync } from 'node:fs';
import { procStat } from './proc-stat.js';

/** CPU seconds each kind of thread of a process has used so far, by the thread's name (`node`, `libuv-worker`, `V8 DefaultWorke`…). */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const ticks = 100; // USER_HZ on Linux
  const byName = new Map<string, number>();
  const tids = readdirSync(`/proc/${pid}/task`)
    .map(Number)
    .sort((x, y) => x - y);
  for (const [order, tid] of tids.entries()) {
    let stat: ReturnType<typeof procStat>;
    try {
      stat = procStat(`/proc/${pid}/task/${tid}/stat`);
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const name = `${stat.name} ${order}`;
    const seconds = (Number(stat.fields[11]) + Number(stat.fields[12])) / ticks;
    byName.set(name, (byName.get(name) ?? 0) + seconds);
  }
  return byName;
}

/** What each kind of thread used between two readings, largest first, as `name s` pairs. */
export function threadCpuSince(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([name, s]) => [name, s - (before.get(name) ?? 0)] as const)
    .filter(([, s]) => s >= 0.005)
    .sort((x, y) => y[1] - x[1])
    .map(([name, s]) => `${name} ${s.toFixed(2)}`)
    .join(', ');
}
