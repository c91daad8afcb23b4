import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { procStat } from './proc-stat.js';

/** One process the benchmark started: its output so far, and a way to wait for a line of it. */
export interface Child {
  readonly name: string;
  readonly pid: number;
  readonly exited: Promise<number | null>;
  /** Everything printed so far (stdout and stderr); `from` skips what was printed before an offset. */
  output(from?: number): string;
  /** Resolves with the first match of `re` printed after offset `from`; rejects when the child exits first. */
  waitFor(re: RegExp, timeoutMs?: number, from?: number): Promise<RegExpExecArray>;
  /** Writes a line to its standard input (started with `stdio: ['pipe', ...]`); `undefined` ends the input. */
  send(line: string | undefined): void;
}

/**
 * Every process the benchmark starts goes through here, so each is ended by its PID when its part
 * is done, when the benchmark fails, and when it is interrupted.
 */
export class Children {
  private readonly running = new Map<number, ChildProcess>();

  constructor() {
    // Last resort (an uncaught throw, process.exit): nothing the benchmark started outlives it.
    process.on('exit', () => {
      for (const pid of this.running.keys()) tryKill(pid, 'SIGKILL');
    });
  }

  start(name: string, command: string, args: readonly string[], opts: SpawnOptions = {}): Child {
    const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    proc.once('error', (e) => process.stderr.write(`${name}: ${e.message}\n`));
    if (proc.pid === undefined) throw new Error(`${name}: could not start ${command}`);
    const pid = proc.pid;
    this.running.set(pid, proc);
    let out = '';
    proc.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) =>
      proc.once('exit', (code) => {
        this.running.delete(pid);
        resolve(code);
      }),
    );
    let gone = false;
    void exited.then(() => (gone = true));
    const send = (line: string | undefined) => {
      if (!proc.stdin) throw new Error(`${name}: started without a standard input to write to`);
      if (line === undefined) proc.stdin.end();
      else proc.stdin.write(`${line}\n`);
    };
    return {
      name,
      pid,
      exited,
      send,
      output: (from = 0) => out.slice(from),
      waitFor: async (re, timeoutMs = 60_000, from = 0) => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const m = re.exec(out.slice(from));
          if (m) return m;
          if (gone) throw new Error(`${name} exited before printing ${re}:\n${out.slice(-2000)}`);
          if (Date.now() > deadline) throw new Error(`${name}: no ${re} within ${timeoutMs} ms:\n${out.slice(-2000)}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      },
    };
  }

  /** SIGTERM by PID, SIGKILL if it is still there after a grace period. */
  async stop(child: Child, graceMs = 5_000): Promise<void> {
    if (!this.running.has(child.pid)) return;
    tryKill(child.pid, 'SIGTERM');
    const timer = setTimeout(() => tryKill(child.pid, 'SIGKILL'), graceMs);
    await child.exited;
    clearTimeout(timer);
  }

  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.running.keys()].map(async (pid) => {
        const proc = this.running.get(pid);
        if (!proc) return;
        tryKill(pid, 'SIGTERM');
        const timer = setTimeout(() => tryKill(pid, 'SIGKILL'), 5_000);
        await new Promise((r) => (proc.exitCode !== null || proc.signalCode !== null ? r(undefined) : proc.once('exit', r)));
        clearTimeout(timer);
      }),
    );
  }
}

function tryKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** A port free on 127.0.0.1 right now (for servers that cannot be told to pick one themselves). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time (user + system, all threads) a process has used so far, from /proc. */
export function cpuSeconds(pid: number): number {
  const { fields } = procStat(`/proc/${pid}/stat`);
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Resident set size of a process (`peak`: the most it has had), from /proc. */
export function rssBytes(pid: number, peak = false): number {
  const field = peak ? 'VmHWM' : 'VmRSS';
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no ${field} for ${pid}`);
  return Number(kb) * 1024;
}
