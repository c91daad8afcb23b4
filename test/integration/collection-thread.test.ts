import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series } from '../helpers/exposition.js';
import { promtoolCheckMetrics } from '../helpers/tools.js';
import { waitFor } from '../helpers/wait.js';

/**
 * vigil runs its collection in a thread of its own (src/engine/thread.ts): the same estate,
 * watched by one daemon collecting in the main thread and one collecting in its thread, must export
 * the same series with the same values, log the same way, follow reloads, and survive the thread's
 * death.
 */
let secrets: SecretsSimulator;
let agents: AgentSimulator;
let teams: TeamsSimulator;
let inProcess: TestDaemon;
let threaded: TestDaemon;

function config(extra = ''): string {
  const s = (name: string) => `  - name: ${name}\n    address: ${secrets.cluster(name).url}\n    timeout: 1s\n    schedule: "${NEVER}"\n`;
  const a = [...agents.agents.values()]
    .map((x) => `  - name: ${x.name}\n    address: ${x.url}\n    token_file: ${tempFile('t', agents.managementToken)}\n    schedule: "${NEVER}"\n`)
    .join('');
  const t = `  - name: acme\n    address: ${teams.url}\n    organization: acme\n    token_file: ${tempFile('t', teams.ownerToken('acme'))}\n    schedule: "${NEVER}"\n`;
  return `secrets:\n${['dr-primary', 'dr-secondary', 'perf-primary', 'perf-secondary'].map(s).join('')}${extra}agents:\n${a}teams:\n${t}`;
}

/**
 * What the upstreams decide: every series but vigil's own telemetry, the runtime's, timings, and
 * the log indexes the agent simulator moves on with time (raft commit and applied index).
 */
const OWN = /^(vigil_|process_|nodejs_)|_seconds|_index\{/;
const fromUpstreams = (m: Map<string, number>) => new Map([...m].filter(([k]) => !OWN.test(k)));

beforeAll(async () => {
  secrets = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 });
  agents = await startAgentSimulator({
    agents: [
      { name: 'server-1', role: 'server', members: 3_000 },
      { name: 'client-1', role: 'client', allocations: 3 },
    ],
  });
  teams = await startTeamsSimulator({ organizations: [{ name: 'acme', teams: 450 }], rateLimit: { perSecond: 100_000 } });
  // A failed member and a disconnected secondary: what pages must come through the thread as well.
  await fetch(`${agents.agent('server-1').url}/v1/agent/force-leave?node=${encodeURIComponent('server-2.global')}`, {
    method: 'POST',
    headers: { 'X-Scheduler-Token': agents.managementToken },
  });
  await fetch(`${secrets.cluster('dr-primary').url}/_sim/replication/dr/secondaries/dr-secondary/disconnect`, { method: 'POST', body: '{}' });
  inProcess = await startTestDaemon(config());
  threaded = await startTestDaemon(config(), { collectionThread: true });
}, 60_000);

afterAll(async () => {
  await threaded?.close();
  await inProcess?.close();
  await Promise.all([secrets?.close(), agents?.close(), teams?.close()]);
});

describe('a collection in its own thread', () => {
  it('exports what a collection in the main thread exports', async () => {
    const earlier = fromUpstreams(await inProcess.metrics());
    await Promise.all([inProcess.collect(), threaded.collect()]);
    const [mine, theirs] = [fromUpstreams(await inProcess.metrics()), fromUpstreams(await threaded.metrics())];
    // the estate is big enough to go through the offload pool (3,000 members) and many teams pages
    expect(theirs.size).toBeGreaterThan(3_000);
    expect([...theirs.keys()].sort()).toEqual([...mine.keys()].sort());
    // values the simulators move on with time (goroutines, indexes) differ between two polls anyway
    const steady = [...mine].filter(([k, v]) => earlier.get(k) === v);
    expect(steady.length).toBeGreaterThan(mine.size * 0.9);
    for (const [k, v] of steady) expect(theirs.get(k), k).toBe(v);
    expect(theirs.get(series('secrets_replication_secondary_connected', { target: 'dr-primary', kind: 'dr', secondary_id: 'dr-secondary' }))).toBe(0);
  });

  it('keeps vigil’s own series: job stats, upstream requests, and a valid exposition', async () => {
    const m = await threaded.metrics();
    expect(m.get(series('vigil_collector_runs_total', { collector: 'teams', target: 'acme' }))).toBeGreaterThanOrEqual(2);
    expect([...m.keys()].some((k) => k.startsWith('vigil_upstream_request_duration_seconds_count'))).toBe(true);
    const check = promtoolCheckMetrics(await threaded.scrape());
    expect(check.status, check.output).toBe(0);
  });

  it('says how each target did, and is ready once every job ran', async () => {
    const views = threaded.daemon.targets();
    expect(views.map((v) => `${v.collector}/${v.target}`).sort()).toEqual(
      inProcess.daemon
        .targets()
        .map((v) => `${v.collector}/${v.target}`)
        .sort(),
    );
    expect(views.every((v) => v.runs >= 1)).toBe(true);
    expect(threaded.daemon.readiness()).toEqual({ ready: true, pending: [] });
    const res = await fetch(`${threaded.url}/readyz`);
    expect(res.status).toBe(200);
  });

  it('logs what the collection logs, in the process’s log', async () => {
    await fetch(`${secrets.cluster('perf-primary').url}/_sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ garbage: true }),
    });
    try {
      await threaded.collect();
    } finally {
      await fetch(`${secrets.cluster('perf-primary').url}/_sim/faults`, { method: 'DELETE' });
    }
    const warned = threaded.logs().filter((l) => l.level === 'warn' && l.target === 'perf-primary');
    expect(warned.length).toBeGreaterThan(0);
    expect(threaded.daemon.targets().find((v) => v.collector === 'secrets_replication' && v.target === 'perf-primary')?.up).toBe(false);
    // the garbage fails that target alone
    const others = threaded.daemon.targets().filter((v) => v.collector === 'secrets_replication' && v.target !== 'perf-primary');
    expect(others.length).toBe(3);
    expect(others.every((v) => v.up === true)).toBe(true);
    await threaded.collect();
    expect(threaded.daemon.targets().find((v) => v.collector === 'secrets_replication' && v.target === 'perf-primary')?.up).toBe(true);
  });

  it('follows a reload: a removed target’s series go, an added one’s come', async () => {
    const withoutTeams = config().replace(/teams:\n[\s\S]*$/, '');
    await threaded.reload(withoutTeams);
    await threaded.collect();
    let m = await threaded.metrics();
    expect([...m.keys()].some((k) => k.startsWith('teams_'))).toBe(false);
    await threaded.reload(config());
    await threaded.collect();
    m = await threaded.metrics();
    expect(m.get(series('teams_up', { target: 'acme', organization: 'acme' }))).toBe(1);
  });

  it('starts a new thread on the last config when its thread dies, and keeps serving meanwhile', async () => {
    const before = await threaded.metrics();
    const wanted = [...fromUpstreams(before).keys()];
    const engine = (threaded.daemon as unknown as { engine: { worker: { terminate(): Promise<number> } } }).engine;
    await engine.worker.terminate();
    // meanwhile, and while the new thread runs its jobs a first time, the last series are still
    // served: scraped over and over until a collection runs on the new thread
    let restarted = false;
    const missing: string[] = [];
    const scraping = (async () => {
      while (!restarted) {
        const now = await threaded.metrics();
        missing.push(...wanted.filter((k) => !now.has(k)));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await waitFor(
      'the thread’s death in the log',
      async () => (threaded.logs().some((l) => l.msg === 'collection thread died; starting a new one') ? true : undefined),
      5_000,
    );
    // a collection asked for before the new thread has its config fails: retried until it runs
    await waitFor('a collection on the new thread', async () => ((await threaded.daemon.collectNow({ force: true })).jobs > 0 ? true : undefined), 10_000);
    restarted = true;
    await scraping;
    expect(missing.slice(0, 5)).toEqual([]);
    const after = await threaded.metrics();
    expect([...fromUpstreams(after).keys()].sort()).toEqual([...fromUpstreams(before).keys()].sort());
    expect(after.get(series('secrets_replication_secondary_connected', { target: 'dr-primary', kind: 'dr', secondary_id: 'dr-secondary' }))).toBe(0);
    expect(after.get(series('vigil_collector_runs_total', { collector: 'teams', target: 'acme' }))).toBeGreaterThanOrEqual(1);
  });

  it('keeps serving the last body when a body does not fit, and starts a new thread that sends it whole', async () => {
    const before = await threaded.metrics();
    const deaths = () => threaded.logs().filter((l) => l.msg === 'collection thread died; starting a new one').length;
    const died = deaths();
    // what the thread would send were its publisher and this side's pieces out of step
    const engine = threaded.daemon as unknown as { engine: { hear(n: unknown): void } };
    engine.engine.hear({ op: 'body', at: Date.now(), text: [987_654_321], openmetrics: [] });
    expect(threaded.logs().some((l) => l.msg === 'collection thread sent a body that does not fit; restarting it')).toBe(true);
    expect([...fromUpstreams(await threaded.metrics()).keys()].sort()).toEqual([...fromUpstreams(before).keys()].sort());
    await waitFor('the restart', async () => (deaths() > died ? true : undefined), 5_000);
    await waitFor('a collection on the new thread', async () => ((await threaded.daemon.collectNow({ force: true })).jobs > 0 ? true : undefined), 10_000);
    expect([...fromUpstreams(await threaded.metrics()).keys()].sort()).toEqual([...fromUpstreams(before).keys()].sort());
  });
});
