import { fileURLToPath } from 'node:url';
import { cpuSeconds, type Children } from './children.js';

const REPORT = fileURLToPath(new URL('wrk-report.lua', import.meta.url));

export interface Load {
  url: string;
  connections: number;
  seconds: number;
  gzip: boolean;
  /** The server's PID, to charge it the CPU it spent answering. */
  serverPid: number;
  /** More request headers (`Name: value`), e.g. credentials. */
  headers?: string[];
  /** wrk's nice value (negative needs root): a scraper that waits for a core measures the machine, not the server. */
  nice?: number;
}

export interface LoadResult {
  requests: number;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  bytes_per_response: number;
  /** Server CPU (all threads) per answered request. */
  cpu_ms_per_request: number;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * wrk against one URL from its own process, bounded in time, with the server's CPU measured over
 * the same window. Errors and non-2xx answers mean something broke: they throw.
 */
export async function load(children: Children, l: Load): Promise<LoadResult> {
  const args = ['-t1', `-c${l.connections}`, `-d${l.seconds}s`, '--timeout', '30s', '-s', REPORT];
  if (l.gzip) args.push('-H', 'Accept-Encoding: gzip');
  for (const h of l.headers ?? []) args.push('-H', h);
  const cpuBefore = cpuSeconds(l.serverPid);
  const wrk =
    l.nice === undefined ? children.start('wrk', 'wrk', [...args, l.url]) : children.start('wrk', 'nice', ['-n', String(l.nice), 'wrk', ...args, l.url]);
  const code = await wrk.exited;
  const cpu = cpuSeconds(l.serverPid) - cpuBefore;
  const line = /wrk-json (\{.*\})/.exec(wrk.output())?.[1];
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}):\n${wrk.output()}`);
  const r = JSON.parse(line) as Record<'requests' | 'bytes' | 'duration_us' | 'errors' | 'non_2xx' | 'p50_us' | 'p99_us' | 'max_us', number>;
  if (r.errors || r.non_2xx || !r.requests) throw new Error(`wrk against ${l.url}: ${r.errors} errors, ${r.non_2xx} non-2xx, ${r.requests} answers`);
  return {
    requests: r.requests,
    requests_per_second: round(r.requests / (r.duration_us / 1e6), 1),
    p50_ms: round(r.p50_us / 1000),
    p99_ms: round(r.p99_us / 1000),
    max_ms: round(r.max_us / 1000),
    bytes_per_response: Math.round(r.bytes / r.requests),
    cpu_ms_per_request: round((cpu * 1000) / r.requests),
  };
}
