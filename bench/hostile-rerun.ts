/**
 * Re-runs the red team's attacks against a real vigil process, one attack to a fresh vigil: a hostile
 * target (bench/hostile/attacks.ts) beside ONE healthy target of another kind, both on a 5-second
 * schedule, their upstreams loopback servers in this process. vigil runs as the image runs it
 * (`node --single-threaded-gc --max-semi-space-size=4 --no-memory-reducer --expose-gc dist/main.js`); the image's 512 MiB memory limit is not emulated (no
 * V8 flag is one), vigil's peak RSS (VmHWM, every thread of the process) is reported and flagged
 * against it. Every second the bench scrapes /metrics and reads /proc/<pid>/status.
 *
 *   npm run build   # dist/ of this worktree is what runs; built here when missing
 *   npx tsx bench/hostile-rerun.ts [--attack=all|autopilot|nodes|names|ha-status|echo-proxy] [--seconds=90] [--kill-above-mib=3072]
 *
 * Reported per attack: whether vigil stayed alive (a crash or OOM is reported and the next attack
 * runs), the hostile target's `_up` series, vigil_collector_failures_total by reason and
 * *_series_dropped gauges, the series and bytes of /metrics, peak RSS, the healthy target's worst
 * staleness (the most seconds any scrape saw since a vigil_collector_last_success_timestamp_seconds
 * of target="healthy", up to its death for a vigil that died), and the bytes vigil logged.
 * A vigil past --kill-above-mib is killed by the bench (to keep the machine usable): in the image it
 * would have been OOM-killed long before. Results: bench/results/hostile-rerun.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { startVigil } from '../test/helpers/process.js';
import { VIGIL_NODE_FLAGS } from './scale/start-vigil.js';
import { ATTACKS, PROXY_PASSWORD, PROXY_USER, type Attack } from './hostile/attacks.js';
import { healthy, serve } from './hostile/upstreams.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const flag = (name: string, def: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? def;
const WHICH = flag('attack', 'all');
const SECONDS = Number(flag('seconds', '90'));
const KILL_ABOVE = Number(flag('kill-above-mib', '3072'));
const IMAGE_LIMIT_MIB = 512;
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const attacks = WHICH === 'all' ? ATTACKS : ATTACKS.filter((a) => a.name === WHICH);
if (!attacks.length) throw new Error(`unknown attack ${WHICH} (use all, ${ATTACKS.map((a) => a.name).join(', ')})`);
if (!existsSync(join(ROOT, 'dist/main.js'))) {
  process.stdout.write('dist/main.js is missing: npm run build:vigil\n');
  if (spawnSync('npm', ['run', 'build:vigil'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('npm run build:vigil failed');
}

interface Result {
  attack: string;
  alive: boolean;
  exit: string | null;
  hostile_up: Record<string, string>;
  hostile_failures: Record<string, number>;
  hostile_dropped: Record<string, number>;
  series: number | null;
  metrics_bytes: number | null;
  metrics_scrape_seconds_max: number;
  scrapes_failed: number;
  peak_rss_mib: number;
  over_image_limit: boolean;
  healthy_worst_gap_s: number | null;
  healthy_successes: number;
  log_bytes: number;
  upstream_requests: number;
  leaks?: string[];
  last_output?: string;
}

/** What one /metrics answer says of the two targets. */
function readMetrics(text: string) {
  let series = 0;
  const up: Record<string, [number, number]> = {};
  const failures: Record<string, number> = {};
  const dropped: Record<string, number> = {};
  const success = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    series++;
    const brace = line.indexOf('{');
    const name = brace < 0 ? line.slice(0, line.indexOf(' ')) : line.slice(0, brace);
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.includes('target="hostile"')) {
      const endpoint = /[{,]endpoint="([^"]*)"/.exec(line)?.[1];
      if (name.endsWith('_up')) {
        const [sum, n] = (up[endpoint ? `${name}{${endpoint}}` : name] ??= [0, 0]);
        up[endpoint ? `${name}{${endpoint}}` : name] = [sum + value, n + 1];
      } else if (name === 'vigil_collector_failures_total') {
        const reason = /reason="([^"]*)"/.exec(line)?.[1] ?? '?';
        if (value) failures[reason] = (failures[reason] ?? 0) + value;
      } else if (name.endsWith('_series_dropped')) dropped[name] = value;
    } else if (name === 'vigil_collector_last_success_timestamp_seconds' && line.includes('target="healthy"')) {
      success.set(line.slice(brace, line.lastIndexOf('}') + 1), value);
    }
  }
  // An _up of several series (one per node, per kind): how many of them are 1, of how many.
  const ups = Object.fromEntries(Object.entries(up).map(([k, [sum, n]]) => [k, n === 1 ? `${sum}` : `${sum}/${n}`]));
  return { series, up: ups, failures, dropped, success };
}

const status = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
};
const kib = (text: string, key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0) * 1024;

async function get(url: string, timeoutMs: number): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return res.text();
}

async function run(attack: Attack): Promise<Result> {
  const up = await serve(attack.handler, attack.connect);
  const other = healthy[attack.healthy];
  const good = await serve(other.handler);
  const dir = mkdtempSync(join(tmpdir(), `vigil-bench-hostile-${attack.name}-`));
  writeFileSync(join(dir, 'token'), 'bench-token\n');
  const config = { ...attack.config(up.url, dir), ...other.config(good.url) };
  writeFileSync(join(dir, 'vigil.yml'), stringify(config));
  const vigil = startVigil([`--config.file=${join(dir, 'vigil.yml')}`, '--web.listen-address=127.0.0.1:0', '--log.format=json'], {
    built: { root: ROOT },
    nodeArgs: VIGIL_NODE_FLAGS,
  });
  let logBytes = 0;
  const count = (c: Buffer) => (logBytes += c.length);
  vigil.child.stdout?.on('data', count);
  vigil.child.stderr?.on('data', count);
  const gone = () => vigil.child.exitCode !== null || vigil.child.signalCode !== null;
  const pid = vigil.child.pid as number;
  let peak = 0;
  let killedByBench = false;
  const watchMemory = () => {
    const s = status(pid);
    peak = Math.max(peak, kib(s, 'VmHWM'));
    if (!killedByBench && kib(s, 'VmRSS') > KILL_ABOVE * 1024 * 1024) {
      killedByBench = true;
      vigil.child.kill('SIGKILL');
    }
  };
  const memoryTimer = setInterval(watchMemory, 250);
  const result: Result = {
    attack: attack.name,
    alive: false,
    exit: null,
    hostile_up: {},
    hostile_failures: {},
    hostile_dropped: {},
    series: null,
    metrics_bytes: null,
    metrics_scrape_seconds_max: 0,
    scrapes_failed: 0,
    peak_rss_mib: 0,
    over_image_limit: false,
    healthy_worst_gap_s: null,
    healthy_successes: 0,
    log_bytes: 0,
    upstream_requests: 0,
  };
  try {
    const url = await vigil.ready('vigil listening', 60_000);
    const logAtReady = logBytes;
    const started = Date.now() / 1000;
    let worst = 0;
    let lastSuccess: number | undefined; // the oldest of the healthy target's last successes, at the last scrape
    const successes = new Set<number>();
    while (Date.now() / 1000 - started < SECONDS && !gone()) {
      const t0 = Date.now();
      try {
        const text = await get(`${url}/metrics`, 15_000);
        const now = Date.now() / 1000;
        const m = readMetrics(text);
        result.series = m.series;
        result.metrics_bytes = Buffer.byteLength(text);
        Object.assign(result, { hostile_up: m.up, hostile_failures: m.failures, hostile_dropped: m.dropped });
        result.metrics_scrape_seconds_max = Math.max(result.metrics_scrape_seconds_max, Math.round((now - t0 / 1000) * 10) / 10);
        const values = [...m.success.values()];
        values.forEach((v) => successes.add(v));
        lastSuccess = values.length ? Math.min(...values) : undefined;
        worst = Math.max(worst, now - (lastSuccess ?? started));
      } catch {
        result.scrapes_failed++;
      }
      watchMemory();
      await sleep(Math.max(0, 1000 - (Date.now() - t0)));
    }
    if (gone()) worst = Math.max(worst, Date.now() / 1000 - (lastSuccess ?? started));
    result.healthy_worst_gap_s = Math.round(worst * 10) / 10;
    result.healthy_successes = successes.size;
    result.log_bytes = logBytes - logAtReady;
    if (attack.name === 'echo-proxy') result.leaks = await leaks(url, vigil.output(), gone());
  } catch (e) {
    result.last_output = `${(e as Error).message.slice(0, 300)}`;
  } finally {
    clearInterval(memoryTimer);
    watchMemory();
    result.alive = !gone();
    const code = await vigil.stop();
    if (!result.alive) {
      result.exit = killedByBench ? `killed by the bench above ${KILL_ABOVE} MiB RSS` : `${code ?? vigil.child.signalCode}`;
      result.last_output ??= vigil.output().slice(-600);
    }
    result.peak_rss_mib = mib(peak);
    result.over_image_limit = result.peak_rss_mib > IMAGE_LIMIT_MIB;
    result.upstream_requests = up.requests();
    await Promise.all([up.close(), good.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

/** Where the proxy's password, or its base64 in Proxy-Authorization, shows: the log, the API answers and the status page. */
async function leaks(url: string, log: string, dead: boolean): Promise<string[]> {
  const secrets = [PROXY_PASSWORD, Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64'), Buffer.from(PROXY_PASSWORD).toString('base64')];
  const found = (where: string, text: string) => (secrets.some((s) => text.includes(s)) ? [where] : []);
  const pages = dead
    ? []
    : await Promise.all(['/api/v1/targets', '/api/v1/estate', '/'].map(async (p) => [p, await get(`${url}${p}`, 15_000).catch(() => '')]));
  return [...found('log', log), ...pages.flatMap(([p, text]) => found(p!, text!))];
}

const results: Result[] = [];
for (const attack of attacks) {
  process.stdout.write(`${attack.name}: ${SECONDS} s against a fresh vigil...\n`);
  results.push(await run(attack));
}

const brief = (o: Record<string, number | string>) =>
  Object.entries(o)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ') || '-';
const rows = results.map((r) => [
  r.attack,
  r.alive ? 'yes' : `NO (${r.exit})`,
  brief(r.hostile_up).replace(/secrets_|scheduler_|vigil_/g, ''),
  brief(r.hostile_failures),
  brief(r.hostile_dropped).replace(/_series_dropped/g, ''),
  `${r.series ?? '-'}`,
  r.metrics_bytes === null ? '-' : `${Math.round(r.metrics_bytes / 1024)}`,
  `${r.peak_rss_mib}${r.over_image_limit ? ' >512!' : ''}`,
  `${r.healthy_worst_gap_s ?? '-'}`,
  `${Math.round(r.log_bytes / 1024)}`,
  r.leaks === undefined ? '' : r.leaks.join(',') || 'none',
]);
const head = ['attack', 'alive', 'hostile up', 'failures by reason', 'dropped', 'series', 'metrics KiB', 'peak RSS MiB', 'healthy gap s', 'log KiB', 'leaks'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
for (const row of [head, ...rows]) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join(' | ')}\n`);

const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
const out = { bench: 'hostile-rerun', seconds: SECONDS, image_limit_mib: IMAGE_LIMIT_MIB, node: process.versions.node, commit, results };
mkdirSync(new URL('results/', import.meta.url), { recursive: true });
writeFileSync(new URL('results/hostile-rerun.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
process.stdout.write('written to bench/results/hostile-rerun.json\n');
