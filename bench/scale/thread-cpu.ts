import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds each kind of thread of a process has used so far, by the thread's name (`node`, `libuv-worker`, `V8 DefaultWorke`…). */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const ticks = 100; // USER_HZ on Linux
  const byName = new Map<string, number>();
  const tids = readdirSync(`/proc/${pid}/task`)
    .map(Number)
    .sort((x, y) => x - y);
  for (const [order, tid] of tids.entries()) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const close = stat.lastIndexOf(')');
    const name = `${stat.slice(stat.indexOf('(') + 1, close)} ${order}`;
    const fields = stat.slice(close + 2).split(' ');
    // After the name: state is field 3 of stat(5), so utime (14) and stime (15) are at 11 and 12 here.
    const seconds = (Number(fields[11]) + Number(fields[12])) / ticks;
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
