import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

/**
 * Debian's Prometheus and Alertmanager, started on loopback in a temp dir of their own and stopped
 * by PID: for the demo and the end-to-end tests. Nothing is downloaded: a missing binary is named
 * with the package that brings it.
 */

/** Where a Debian package puts a binary, or undefined when it is not installed. */
export function findBinary(binary: string): string | undefined {
  return ['/usr/bin', '/usr/local/bin', '/bin'].map((d) => `${d}/${binary}`).find((p) => existsSync(p));
}

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
  readonly pid: number | undefined;
  output(): string;
  /** SIGTERM (SIGKILL after 5 s), then its temp dir removed. */
  stop(): Promise<void>;
}

export interface ServiceSpec {
  name: string;
  binary: string;
  /** The Debian package of the binary, named when it is missing. */
  install: string;
  args: (dir: string, port: number) => string[];
  files?: (dir: string, port: number) => Record<string, unknown>;
  /** A path answered 200 once the service is ready. */
  ready: string;
  /** Where the temp dir goes (default: the system's). */
  parentDir?: string;
  port?: number;
}

export async function startService(spec: ServiceSpec): Promise<Service> {
  const bin = findBinary(spec.binary);
  if (!bin) throw new Error(`${spec.binary} not found: apt-get install ${spec.install}`);
  const dir = mkdtempSync(join(spec.parentDir ?? tmpdir(), `vigil-${spec.name}-`));
  const port = spec.port ?? (await freePort());
  for (const [file, content] of Object.entries(spec.files?.(dir, port) ?? {})) {
    writeFileSync(join(dir, file), typeof content === 'string' ? content : stringify(content));
  }
  const child: ChildProcess = spawn(bin, spec.args(dir, port), { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (c: Buffer) => {
    // Only the tail is kept: enough to say why it failed.
    out = (out + c.toString()).slice(-64 * 1024);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
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
      throw new Error(`${spec.name} exited (${child.exitCode}):\n${out}`);
    }
    const ok = await fetch(`${url}${spec.ready}`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${spec.name} not ready after 30 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, pid: child.pid, output: () => out, stop };
}

/** A real Prometheus on loopback with `config` as its prometheus.yml; `extra` flags after the usual ones. */
export function startPrometheus(config: unknown, extra: string[] = [], opts: Pick<ServiceSpec, 'parentDir' | 'port'> = {}): Promise<Service> {
  return startService({
    ...opts,
    name: 'prometheus',
    binary: 'prometheus',
    install: 'prometheus',
    files: () => ({ 'prometheus.yml': config }),
    // The external URL goes into every alert's generatorURL: links to it must reach this Prometheus.
    args: (dir, p) => [
      '--config.file=prometheus.yml',
      `--storage.tsdb.path=${dir}/data`,
      `--web.listen-address=127.0.0.1:${p}`,
      `--web.external-url=http://127.0.0.1:${p}/`,
      ...extra,
    ],
    ready: '/-/ready',
  });
}

/** A real Alertmanager on loopback with `config` as its alertmanager.yml; alone (no cluster) unless `cluster` flags are given. */
export function startAlertmanager(
  config: unknown,
  cluster: string[] = ['--cluster.listen-address='],
  name = 'alertmanager',
  opts: Pick<ServiceSpec, 'parentDir' | 'port'> & { extra?: string[] } = {},
): Promise<Service> {
  return startService({
    ...opts,
    name,
    binary: 'prometheus-alertmanager',
    install: 'prometheus-alertmanager',
    files: () => ({ 'alertmanager.yml': config }),
    args: (dir, p) => [
      '--config.file=alertmanager.yml',
      `--storage.path=${dir}/data`,
      `--web.listen-address=127.0.0.1:${p}`,
      `--web.external-url=http://127.0.0.1:${p}/`,
      ...cluster,
      ...(opts.extra ?? []),
    ],
    ready: '/-/ready',
  });
}
