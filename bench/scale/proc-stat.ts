import { readFileSync } from 'node:fs';

/**
 * A process's or thread's line of /proc (`/proc/<pid>/stat`, `/proc/<pid>/task/<tid>/stat`,
 * `/proc/thread-self/stat`), split after its name, which may hold spaces and parentheses:
 * `fields[0]` is field 3 (state) of proc(5), so minflt (10) is `fields[7]`, utime (14) and stime
 * (15) are `fields[11]` and `fields[12]`.
 */
export function procStat(path: string): { name: string; fields: string[] } {
  const stat = readFileSync(path, 'utf8');
  const close = stat.lastIndexOf(')');
  return { name: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
}

/**
 * Minor page faults so far of a process (`/proc/<pid>/stat`, every thread) or a thread
 * (`/proc/thread-self/stat`); 0 where there is no /proc. On a virtual machine each can cost time.
 */
export function minorFaults(path: string): number {
  try {
    return Number(procStat(path).fields[7]);
  } catch {
    return 0;
  }
}

/** Minor page faults so far of process `pid`, every thread; 0 where there is no /proc. */
export const processFaults = (pid: number): number => minorFaults(`/proc/${pid}/stat`);
