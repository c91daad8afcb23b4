import { writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CollectSummary } from '../../src/daemon.js';
import { freePort, type Child, type Children } from './children.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Node's flags for vigil as its image runs it (the Dockerfile's ENTRYPOINT, `npm start`); the GC probe needs `--expose-gc` too. */
export const VIGIL_NODE_FLAGS = ['--single-threaded-gc', '--max-semi-space-size=4', '--no-memory-reducer', '--expose-gc'];
/** The environment the image gives vigil's process (the Dockerfile's ENV, `npm start`): the C library's allocator settings. */
export const VIGIL_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };
/**
 * The floor's: it fetches on its main thread what vigil fetches on its collection thread, whose
 * young generation vigil sizes itself, so the cap on vigil's main thread is not the floor's.
 */
export const FLOOR_NODE_FLAGS = VIGIL_NODE_FLAGS.filter((f) => !f.startsWith('--max-semi-space-size'));

export async function http(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: HTTP ${res.status}: ${(await res.text()).slice(0, 500)}`);
  return res;
}

/** The bytes as sent (fetch would decompress them). */
export function rawGet(url: string, gzip: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': gzip ? 'gzip' : 'identity' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`GET ${url}: HTTP ${res.statusCode}`))));
      res.on('error', reject);
    }).on('error', reject);
  });
}

export async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** vigil's own process, with the benchmark-only GC probe preloaded. */
export interface Vigil {
  child: Child;
  url: string;
  /** Forces a full GC in vigil and returns the heap left. */
  heapAfterGc(): Promise<number>;
  collect(): Promise<CollectSummary>;
  metrics(gzip?: boolean): Promise<Buffer>;
  /** Writes a new config (for the same listen address) and has vigil reload it. */
  reconfigure(config: (listen: string) => string): Promise<void>;
}

/** `K=V K=V` (BENCH_VIGIL_ENV, e.g. the C library's allocator settings) as environment variables for vigil alone, over `VIGIL_ENV`. */
export function vigilEnv(pairs = ''): Record<string, string> {
  return Object.fromEntries(
    pairs
      .split(' ')
      .filter(Boolean)
      .map((p) => {
        const at = p.indexOf('=');
        if (at < 1) throw new Error(`BENCH_VIGIL_ENV: ${p} is not NAME=value`);
        return [p.slice(0, at), p.slice(at + 1)];
      }),
  );
}

/**
 * Built vigil (`dist/main.js`) on a free loopback port, with the config `config` writes for that
 * address (saved in `dir`); resolves once it answers /healthz.
 */
export async function startVigil(children: Children, dir: string, config: (listen: string) => string): Promise<Vigil> {
  const port = await freePort();
  const listen = `127.0.0.1:${port}`;
  const file = join(dir, 'vigil.yml');
  writeFileSync(file, config(listen));
  const probe = pathToFileURL(join(ROOT, 'bench/scale/gc-probe.mjs')).href;
  // BENCH_VIGIL_NODE_FLAGS='--max-semi-space-size=8' tries V8 settings on vigil alone (the last of a flag wins).
  const nodeFlags = [...VIGIL_NODE_FLAGS, ...(process.env.BENCH_VIGIL_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
  const child = children.start(
    'vigil',
    process.execPath,
    [...nodeFlags, '--import', probe, 'dist/main.js', `--config.file=${file}`, '--log.level=warn', '--web.enable-lifecycle', '--web.collect-min-interval=0s'],
    // BENCH_VIGIL_DIR=../other-checkout runs that checkout's build against this estate (built there first).
    { cwd: process.env.BENCH_VIGIL_DIR ?? ROOT, env: { ...process.env, ...VIGIL_ENV, ...vigilEnv(process.env.BENCH_VIGIL_ENV) } },
  );
  const url = `http://${listen}`;
  await until('vigil to listen', async () => (await fetch(`${url}/healthz`)).ok, 30_000);
  return {
    child,
    url,
    heapAfterGc: async () => {
      const from = child.output().length;
      process.kill(child.pid, 'SIGUSR2');
      const m = await child.waitFor(/gc-probe (\{.*\})/, 30_000, from);
      return (JSON.parse(m[1] ?? '{}') as { heapUsed: number }).heapUsed;
    },
    collect: async () => {
      const summary = (await (await http(`${url}/-/collect`, { method: 'POST' })).json()) as CollectSummary;
      if (summary.failed_jobs) throw new Error(`${summary.failed_jobs} of ${summary.jobs} jobs failed:\n${child.output().slice(-3000)}`);
      return summary;
    },
    metrics: (gzip = false) => rawGet(`${url}/metrics`, gzip),
    reconfigure: async (next) => {
      writeFileSync(file, next(listen));
      await http(`${url}/-/reload`, { method: 'POST' });
    },
  };
}

/** Runs `work` while collections run back to back; returns it with the collections' summaries. */
export async function whileCollecting<T>(vigil: Vigil, work: () => Promise<T>): Promise<{ result: T; collections: CollectSummary[] }> {
  let stop = false;
  const collections: CollectSummary[] = [];
  const loop = (async () => {
    while (!stop) collections.push(await vigil.collect());
  })();
  loop.catch(() => undefined); // rethrown by the await below, once `work` is done
  try {
    const result = await work();
    return { result, collections };
  } finally {
    stop = true;
    await loop;
  }
}
