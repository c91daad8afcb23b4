/**
 * A soak (issue 26): the bench estate collected every second and 10 Alertmanager notifications a
 * second posted into the alert sink, for half an hour; vigil's RSS and open file descriptors sampled
 * every 10 s and their slopes reported, so a leak shows as a number rather than as an outage weeks
 * into a deployment.
 *
 *   npm run bench:soak                                   # builds, then 30 minutes at full size
 *   npm run build && node --import tsx bench/soak.ts --minutes=2 --scale=0.1   # a short look
 *
 * Every process is its own and ended by PID, also on failure or SIGINT: the simulators
 * (bench/scale/estate-main.ts) and vigil (`node dist/main.js`, every target scheduled
 * every second, the sink on an SQLite store in a temp dir, bearer token), all on 127.0.0.1.
 * /tmp/vigil-soak.lock exists while it runs, so quiet-machine measurements can wait for it to end.
 * Prints tables and writes bench/results/soak.json and soak-samples.json; fails only when something
 * breaks (a process that dies or does not start), never on a number.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Children } from './scale/children.js';
import { vigilConfig } from './scale/estate.js';
import { machine, printTable, writeResult, type Row } from './scale/report.js';
import { runBench } from './scale/run-bench.js';
import { startEstate } from './scale/start-estate.js';
import { startVigil, until, type Vigil } from './scale/start-vigil.js';
import { postNotifications, type Answers } from './soak/notifications.js';
import { sample, trendOf, type Sample, type Trend } from './soak/samples.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    scale: { type: 'string', default: '1' },
    'notifications-per-second': { type: 'string', default: '10' },
    'sample-seconds': { type: 'string', default: '10' },
    out: { type: 'string' },
  },
  strict: true,
});
const MINUTES = Number(flags.minutes);
const SCALE = Number(flags.scale);
const RATE = Number(flags['notifications-per-second']);
const EVERY_S = Number(flags['sample-seconds']);
const OUT = flags.out ?? join(ROOT, 'bench/results');
/** What a leak must be told apart from: the first 5 minutes (start-up, caches filling), or the first sixth of a short run. */
const WARMUP_S = Math.min(300, (MINUTES * 60) / 6);
const SCHEDULE = '*/1 * * * * *';
const LOCK = '/tmp/vigil-soak.lock';

const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'vigil-soak-'));
const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Takes the lock, or fails when another soak that is still alive holds it. */
function lock(): void {
  if (existsSync(LOCK)) {
    const pid = Number(/"pid":(\d+)/.exec(readFileSync(LOCK, 'utf8'))?.[1]);
    const alive = (() => {
      try {
        return Number.isInteger(pid) && process.kill(pid, 0);
      } catch {
        return false;
      }
    })();
    if (alive) throw new Error(`${LOCK} is held by soak process ${pid}`);
  }
  writeFileSync(LOCK, `${JSON.stringify({ pid: process.pid, started: new Date().toISOString(), minutes: MINUTES, scale: SCALE })}\n`);
}
const unlock = () => {
  if (existsSync(LOCK) && readFileSync(LOCK, 'utf8').includes(`"pid":${process.pid},`)) rmSync(LOCK, { force: true });
};
process.on('exit', unlock);

async function start(): Promise<{ vigil: Vigil; token: string; store: string }> {
  const { estate } = await startEstate(children, SCALE, scratch);
  const s = estate.shape;
  say(
    `estate at ${SCALE}: ${s.pairs * 2} secrets clusters, ${s.servers} servers x ${s.members} members, ${s.clients} clients, ${s.organizations} orgs x ${s.teams} teams`,
  );
  const token = 'soak-sink-token';
  const tokenFile = join(scratch, 'sink-token');
  writeFileSync(tokenFile, token, { mode: 0o600 });
  const store = join(scratch, 'alerts.db');
  const sink = `alert_sink:\n  bearer_token_file: ${tokenFile}\n  store: { path: ${store} }\n`;
  const vigil = await startVigil(children, scratch, (listen) => vigilConfig(estate, listen, SCHEDULE) + sink);
  await until('vigil to be ready (first collection done)', async () => (await fetch(`${vigil.url}/readyz`)).ok, 300_000);
  const auth = { authorization: `Bearer ${token}` };
  await until('the alert sink to answer', async () => (await fetch(`${vigil.url}/api/v1/alerts?limit=1`, { headers: auth })).ok, 60_000);
  return { vigil, token, store };
}

interface Run {
  samples: Sample[];
  answers: Answers;
  heapAfterGc: { warmup_end_mib?: number; end_mib?: number };
}

/** The load for MINUTES, a sample every EVERY_S seconds; a forced GC's heap at the end of the warm-up and at the end. */
async function soak(vigil: Vigil, token: string, store: string): Promise<Run> {
  const t0 = performance.now();
  const load = postNotifications(vigil.url, token, RATE);
  const samples: Sample[] = [];
  const heapAfterGc: Run['heapAfterGc'] = {};
  const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
  let gone = false;
  void vigil.child.exited.then(() => (gone = true));
  try {
    for (let i = 0; i * EVERY_S <= MINUTES * 60; i++) {
      await sleep(Math.max(0, t0 + i * EVERY_S * 1000 - performance.now()));
      if (gone) throw new Error(`vigil exited during the soak:\n${vigil.child.output().slice(-3000)}`);
      const s = await sample(vigil.child.pid, vigil.url, store, t0);
      samples.push(s);
      const acked = load.answers['200'] ?? 0;
      say(
        `${s.t_s}s rss ${s.rss_mib} MiB, fds ${s.fds}, heap ${s.heap_used_mib} MiB, runs ${s.runs}, skipped ${s.skipped}, ` +
          `failures ${s.failures}, store ${s.store_mib} MiB, notifications 200: ${acked}, all: ${JSON.stringify(load.answers)}`,
      );
      // Just after the sample that ends the warm-up, so it disturbs none of the series.
      if (heapAfterGc.warmup_end_mib === undefined && s.t_s >= WARMUP_S) heapAfterGc.warmup_end_mib = mib(await vigil.heapAfterGc());
    }
  } finally {
    await load.stop();
  }
  heapAfterGc.end_mib = mib(await vigil.heapAfterGc());
  return { samples, answers: load.answers, heapAfterGc };
}

const FIELDS = [
  ['rss_mib', 'RSS MiB (/proc VmRSS)'],
  ['fds', 'open FDs (/proc/PID/fd)'],
  ['heap_used_mib', 'heap used MiB (nodejs_heap_size_used_bytes)'],
  ['external_mib', 'external MiB (nodejs_external_memory_bytes)'],
  ['active_handles', 'active handles (nodejs_active_handles)'],
  ['store_mib', 'SQLite store + WAL MiB'],
] as const;

function report(run: Run, about: Row): void {
  const trends: Array<Row & { series: string }> = FIELDS.flatMap(([field, label]) => {
    const t: Trend | undefined = trendOf(run.samples, field, WARMUP_S);
    return t ? [{ series: label, ...t, 'slope ± 2 se /h': `${t.slope_per_hour} ± ${Math.round(t.slope_stderr_per_hour * 200) / 100}` }] : [];
  });
  const first = run.samples[0];
  const last = run.samples.at(-1);
  const sent = Object.values(run.answers).reduce((a, n) => a + n, 0);
  const summary: Row = {
    'span s': last?.t_s,
    samples: run.samples.length,
    'samples after warm-up': run.samples.filter((s) => s.t_s >= WARMUP_S).length,
    'warm-up s': WARMUP_S,
    'notifications sent': sent,
    'acked (200)': run.answers['200'] ?? 0,
    'failed (other)': sent - (run.answers['200'] ?? 0),
    answers: JSON.stringify(run.answers),
    'job runs': (last?.runs ?? 0) - (first?.runs ?? 0),
    'skipped runs': (last?.skipped ?? 0) - (first?.skipped ?? 0),
    // the ticks that fell on vigil's first collection, before the load began
    'skipped before load': first?.skipped,
    'run failures': (last?.failures ?? 0) - (first?.failures ?? 0),
    'heap after GC, warm-up end MiB': run.heapAfterGc.warmup_end_mib,
    'heap after GC, end MiB': run.heapAfterGc.end_mib,
  };
  printTable(`trends after the warm-up (least squares over ${summary['samples after warm-up']} samples; slope per hour)`, trends);
  printTable('the run', [summary]);
  writeResult(OUT, 'soak', { ...about, summary }, trends);
  writeResult(OUT, 'soak-samples', about, run.samples);
  say(`\nwritten to ${OUT}/soak.json and soak-samples.json`);
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: npm run build');
  lock();
  const [l1, l5, l15] = loadavg().map((x) => Math.round(x * 100) / 100);
  const about: Row = {
    ...machine(),
    load_at_start: `${l1} ${l5} ${l15}`,
    minutes: MINUTES,
    scale: SCALE,
    schedule: SCHEDULE,
    notifications_per_second: RATE,
    sample_every_s: EVERY_S,
  };
  say(`soak: ${MINUTES} min at scale ${SCALE}, nproc ${about.nproc}, load ${about.load_at_start}`);
  const { vigil, token, store } = await start();
  report(await soak(vigil, token, store), about);
}

await runBench('soak', children, scratch, main, unlock);
