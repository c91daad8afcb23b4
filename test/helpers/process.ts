import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const NODE_ARGS = ['--import', 'tsx', MAIN];

/** Runs the vigil command to completion (for flag and config errors). */
export function runVigil(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...NODE_ARGS, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface VigilProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when a log line matching `re` has been printed. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<void>;
  stop(): Promise<number | null>;
}

/** Starts vigil as a separate process, as an operator would; stop() ends it by PID. */
export function startVigil(args: string[]): VigilProcess {
  const child = spawn(process.execPath, [...NODE_ARGS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return {
    child,
    output: () => out,
    waitFor: async (re, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!re.test(out)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${re} in:\n${out}`);
        if (child.exitCode !== null) throw new Error(`vigil exited (${child.exitCode}):\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}
