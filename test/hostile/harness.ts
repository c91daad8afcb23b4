import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseExposition } from '../helpers/exposition.js';
import { startVigil, type VigilProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A real vigil process on 127.0.0.1:<free port> for the hostile suite, with the checks every case
 * ends with: the process is up, its RSS is bounded, /metrics answers, and no label is unbounded.
 */

/** RSS a vigil may reach under any case here (the heap-exhaustion case grew to 4 GiB). */
export const MAX_RSS_BYTES = 768 * 1024 * 1024;
/** Generous: a liveness bound for a busy machine, not a latency target (those are in bench/). */
export const ANSWER_TIMEOUT_MS = 20_000;

export interface HostileVigil {
  vigil: VigilProcess;
  url: string;
  dir: string;
  token: string;
  /** Headers of an authenticated webhook request. */
  auth: Record<string, string>;
  stop(): Promise<number | null>;
}

/** `extra` is appended to the config (targets); the sink always runs, with a bearer token. */
export async function startHostileVigil(extra = '', sink = ''): Promise<HostileVigil> {
  const dir = tempDir('vigil-hostile-');
  const token = SUITE_TOKEN;
  writeFileSync(join(dir, 'token'), `${token}\n`);
  const config = join(dir, 'vigil.yml');
  writeFileSync(config, `alert_sink:\n  bearer_token_file: ${join(dir, 'token')}\n  store: { path: ${join(dir, 'alerts.db')} }\n${sink}${extra}`);
  const vigil = startVigil([`--config.file=${config}`, '--web.listen-address=127.0.0.1:0', '--log.format=json', '--web.enable-lifecycle']);
  let url: string;
  try {
    url = await vigil.ready();
  } catch (e) {
    await vigil.stop();
    throw e;
  }
  return {
    vigil,
    url,
    dir,
    token,
    auth: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    stop: () => vigil.stop(),
  };
}

export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? NaN) * 1024;
}

/** The sink's token: it also opens the sink's read API. */
const SUITE_TOKEN = 'hostile-suite-token';

/** GET with the liveness bound and the sink's token; the body as text. */
export async function get(url: string, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${SUITE_TOKEN}` }, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
  return { status: res.status, text: await res.text() };
}

/** Label values of `label` across every series of /metrics text. */
export function labelValues(metrics: string, label: string): Set<string> {
  const out = new Set<string>();
  for (const m of metrics.matchAll(new RegExp(`[{,]${label}="((?:[^"\\\\]|\\\\.)*)"`, 'g'))) out.add(m[1] as string);
  return out;
}

/** The checks after every case. */
export async function expectHealthy(h: HostileVigil, maxLabelValues = 100): Promise<void> {
  expect(h.vigil.child.exitCode, h.vigil.output().slice(-2000)).toBeNull();
  const m = await get(h.url, '/metrics');
  expect(m.status).toBe(200);
  parseExposition(m.text);
  const rss = rssBytes(h.vigil.child.pid as number);
  // eslint-disable-next-line no-console -- the figure this sweep measures, in the run's output
  console.log(`hostile: vigil RSS ${Math.round(rss / 2 ** 20)} MiB, /metrics ${m.text.length} bytes`);
  expect(rss).toBeLessThan(MAX_RSS_BYTES);
  for (const label of ['receiver', 'severity']) {
    const values = labelValues(m.text, label);
    expect(values.size, label).toBeLessThanOrEqual(maxLabelValues + 1);
    for (const v of values) expect(v.length, label).toBeLessThanOrEqual(128);
  }
  for (const line of m.text.split('\n')) expect(line.length).toBeLessThan(4096);
}

/** Runs `work` while scraping /metrics in a loop; every scrape must answer. Worst latency is printed, not asserted. */
export async function whileScraping<T>(h: HostileVigil, what: string, work: Promise<T>): Promise<T> {
  let done = false;
  let worst = 0;
  let scrapes = 0;
  const loop = (async () => {
    while (!done) {
      const t = performance.now();
      expect((await get(h.url, '/metrics')).status).toBe(200);
      worst = Math.max(worst, performance.now() - t);
      scrapes++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    return await work;
  } finally {
    done = true;
    await loop;
    // eslint-disable-next-line no-console -- the figure this sweep measures, in the run's output
    console.log(`hostile: ${what}: ${scrapes} scrapes meanwhile, slowest ${Math.round(worst)} ms`);
  }
}
