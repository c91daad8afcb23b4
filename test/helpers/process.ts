import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitFor } from './wait.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'src/main.ts');
const NODE_ARGS = ['--import', 'tsx', MAIN];

/**
 * Runs a probe script of the tests' (TypeScript, through tsx) in a node of its own, from the
 * project's root, with `nodeFlags` before it and `args` after: for what one process must show
 * alone (its threads' heaps, V8's flags).
 */
export function runProbe(script: string, nodeFlags: readonly string[] = [], args: readonly string[] = []): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [...nodeFlags, '--import', 'tsx', script, ...args], { cwd: ROOT, timeout: 60_000, maxBuffer: 16 * 2 ** 20 });
}

/** Runs the vigil command to completion (for flag and config errors). */
export function runVigil(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...NODE_ARGS, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** runVigil without blocking this process: for a run that polls servers this test process serves (`--config.check.probe`). */
export function runVigilAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** The log lines that say a vigil is ready: its alert sink's, or `vigil listening` for one without a sink. */
export type ReadyLine = 'alert sink ready' | 'vigil listening' | 'configuration loaded';

export interface VigilProcess {
  child: ChildProcess;
  /** Where it listens, from its `vigil listening` log line: set by `ready()` (and `spawnVigil`), '' before. */
  url: string;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Resolves when a log line matching `re` has been printed; fails at once if vigil exits first. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<void>;
  /** Waits for the JSON log line `msg`, then sets and resolves `url`. */
  ready(msg?: ReadyLine, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then SIGKILL after 10 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Which vigil to run: the sources through tsx (the default), or the compiled `dist/main.js` of `built.root`. */
export interface StartOptions {
  built?: { root: string };
  /** Flags for node itself, before the entry: `VIGIL_NODE_FLAGS`, as the image runs vigil. */
  nodeArgs?: string[];
}

/** Starts vigil as a separate process, as an operator would, with exactly these flags. */
export function startVigil(args: string[], opts: StartOptions = {}): VigilProcess {
  const entry = opts.built ? [join(opts.built.root, 'dist/main.js')] : NODE_ARGS;
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...entry, ...args], { cwd: opts.built?.root ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const v: VigilProcess = {
    child,
    url: '',
    output: () => out,
    waitFor: async (re, timeoutMs = 60_000) => {
      await waitFor(`${re}`, async () => (re.test(out) ? true : gone() ? false : undefined), timeoutMs, {
        everyMs: 50,
        describeFailure: () => ` in:\n${out}`,
      }).then((found) => {
        if (!found) throw new Error(`vigil exited (${child.exitCode ?? child.signalCode}) before ${re}:\n${out}`);
      });
    },
    ready: async (msg = 'alert sink ready', timeoutMs) => {
      await v.waitFor(new RegExp(`"msg":"${msg}"`), timeoutMs);
      const line = out.split('\n').find((l) => l.includes('"msg":"vigil listening"')) ?? '{}';
      v.url = (JSON.parse(line) as { url?: string }).url ?? '';
      return v.url;
    },
    stop: async () => {
      if (!gone()) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
  return v;
}

export interface SpawnOptions extends StartOptions {
  timeoutMs?: number;
  /** HOST:PORT to listen on (a restart keeps its scrape target); default a free port. */
  listen?: string;
  /** Further flags, e.g. `--total-shards=3`. */
  args?: string[];
  /** The log line that says it is ready (default: the alert sink's). */
  readyOn?: ReadyLine;
}

/**
 * Real vigil in its own process with JSON logs, on 127.0.0.1:<free port> unless `listen` says
 * otherwise, resolving once it is ready (with `url` set). A vigil that does not get ready is
 * stopped, and the failure says what it printed.
 */
export async function spawnVigil(configFile: string, opts: SpawnOptions | number = {}): Promise<VigilProcess> {
  const { timeoutMs = 20_000, built, listen = '127.0.0.1:0', args = [], readyOn = 'alert sink ready' } = typeof opts === 'number' ? { timeoutMs: opts } : opts;
  const v = startVigil([`--config.file=${configFile}`, `--web.listen-address=${listen}`, '--log.format=json', ...args], built ? { built } : {});
  try {
    await v.ready(readyOn, timeoutMs);
  } catch (e) {
    await v.stop();
    throw e;
  }
  return v;
}
