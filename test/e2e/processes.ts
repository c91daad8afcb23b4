import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { requireTool } from '../helpers/tools.js';

/** A free loopback port (bound, read, released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface Service {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a binary on loopback in a temp dir and waits for its readiness URL; stop() kills it by PID. */
export async function startService(opts: {
  name: string;
  binary: string;
  install: string;
  args: (dir: string, port: number) => string[];
  files?: (dir: string, port: number) => Record<string, unknown>;
  ready: string;
}): Promise<Service> {
  const bin = requireTool(opts.binary, opts.install);
  const dir = mkdtempSync(join(tmpdir(), `vigil-e2e-${opts.name}-`));
  const port = await freePort();
  for (const [file, content] of Object.entries(opts.files?.(dir, port) ?? {})) {
    writeFileSync(join(dir, file), typeof content === 'string' ? content : stringify(content));
  }
  const child: ChildProcess = spawn(bin, opts.args(dir, port), { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`${opts.name} exited (${child.exitCode}):\n${out}`);
    }
    const ok = await fetch(`${url}${opts.ready}`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${opts.name} not ready after 30 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, output: () => out, stop };
}

/** A real Prometheus on loopback with `config` as its prometheus.yml; `extra` flags after the usual ones. */
export function startPrometheus(config: unknown, extra: string[] = []): Promise<Service> {
  return startService({
    name: 'prometheus',
    binary: 'prometheus',
    install: 'apt-get install prometheus',
    files: () => ({ 'prometheus.yml': config }),
    args: (dir, p) => ['--config.file=prometheus.yml', `--storage.tsdb.path=${dir}/data`, `--web.listen-address=127.0.0.1:${p}`, ...extra],
    ready: '/-/ready',
  });
}

/** A real Alertmanager on loopback with `config` as its alertmanager.yml; alone (no cluster) unless `cluster` flags are given. */
export function startAlertmanager(config: unknown, cluster: string[] = ['--cluster.listen-address='], name = 'alertmanager'): Promise<Service> {
  return startService({
    name,
    binary: 'prometheus-alertmanager',
    install: 'apt-get install prometheus-alertmanager',
    files: () => ({ 'alertmanager.yml': config }),
    args: (dir, p) => ['--config.file=alertmanager.yml', `--storage.path=${dir}/data`, `--web.listen-address=127.0.0.1:${p}`, ...cluster],
    ready: '/-/ready',
  });
}

/** Polls `check` until it returns a value (not undefined) or the time runs out. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, everyMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
