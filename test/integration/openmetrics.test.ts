import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { promtoolCheckMetrics } from '../helpers/tools.js';
import { startPrometheus, type Service } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

/** What Prometheus 2.42 sends when it scrapes (scrape/scrape.go, acceptHeader). */
const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
const RUNTIME = /^(process_|nodejs_)/;

let agents: AgentSimulator;
let teams: TeamsSimulator;
let d: TestDaemon;
let prometheus: Service;

beforeAll(async () => {
  agents = await startAgentSimulator({
    agents: [
      { name: 'server-1', role: 'server', members: 30 },
      { name: 'client-1', role: 'client', allocations: 3 },
    ],
  });
  teams = await startTeamsSimulator({ organizations: [{ name: 'acme', teams: 40 }], rateLimit: { perSecond: 100_000 } });
  const agentTargets = [...agents.agents.values()]
    .map(
      (a) =>
        `  - name: ${a.name}\n    address: ${a.url}\n    token_file: ${tempFile('t', agents.managementToken)}\n    schedule: "${NEVER}"\n    nodes_schedule: "${NEVER}"\n    workload:\n      schedule: "${NEVER}"\n`,
    )
    .join('');
  d = await startTestDaemon(
    `agents:\n${agentTargets}teams:\n  - name: acme\n    address: ${teams.url}\n    organization: acme\n    token_file: ${tempFile('t', teams.ownerToken('acme'))}\n    schedule: "${NEVER}"\n`,
  );
  const target = new URL(d.url).host;
  prometheus = await startPrometheus({ global: { scrape_interval: '1s' }, scrape_configs: [{ job_name: 'vigil', static_configs: [{ targets: [target] }] }] });
}, 90_000);

afterAll(async () => {
  await prometheus?.stop();
  await d?.close();
  await agents?.close();
  await teams?.close();
});

const get = (accept?: string) => fetch(`${d.url}/metrics`, accept ? { headers: { accept } } : {});
const samples = (body: string) => body.split('\n').filter((l) => l && !l.startsWith('#'));

async function query(expr: string): Promise<number | undefined> {
  const res = (await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as {
    data: { result: Array<{ value: [number, string] }> };
  };
  const v = res.data.result[0]?.value[1];
  return v === undefined ? undefined : Number(v);
}

describe('/metrics content negotiation', () => {
  it('answers the classic text format without an Accept header, and promtool accepts it', async () => {
    const res = await get();
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const body = await res.text();
    expect(body).not.toContain('# EOF');
    expect(body).toContain('# TYPE vigil_collector_runs_total counter');
    const check = promtoolCheckMetrics(body);
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
  });

  it('answers OpenMetrics 1.0 to what Prometheus asks for, with the same samples, units and # EOF', async () => {
    const classic = await (await get()).text();
    const res = await get(PROMETHEUS_ACCEPT);
    expect(res.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(res.headers.get('vary')).toContain('Accept');
    const om = await res.text();
    expect(om.endsWith('\n# EOF\n')).toBe(true);
    expect(om.match(/^# EOF$/gm)).toHaveLength(1);
    expect(om).toContain('# TYPE vigil_collector_runs counter\n');
    expect(om).not.toContain('# TYPE vigil_collector_runs_total');
    expect(om).toMatch(/^vigil_collector_runs_total\{/m);
    expect(om).toContain('# UNIT vigil_config_last_reload_success_timestamp_seconds seconds\n');
    const own = (b: string) => samples(b).filter((l) => !RUNTIME.test(l));
    expect(own(om)).toEqual(own(classic));
  });

  it('keeps the classic format for OpenMetrics versions it does not write and for plain browsers', async () => {
    expect((await get('application/openmetrics-text;version=0.0.1')).headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await get('text/html,application/xhtml+xml,*/*;q=0.8')).headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await get('text/plain;version=0.0.4;q=1,application/openmetrics-text;q=0.5')).headers.get('content-type')).toMatch(/^text\/plain/);
  });
});

describe('a real Prometheus scraping with its default Accept', () => {
  it('ingests the same samples from OpenMetrics as the classic format holds, with no scrape error', async () => {
    const classic = samples(await (await get()).text()).filter((l) => !RUNTIME.test(l));
    const filter = '{job="vigil",__name__!~"process_.*|nodejs_.*|up|scrape_.*"}';
    const health = async () => JSON.stringify((await (await fetch(`${prometheus.url}/api/v1/targets`)).json()) as unknown);
    await waitFor('a first scrape', async () => ((await query('up{job="vigil"}')) === undefined ? undefined : true), 60_000);
    expect(await query('up{job="vigil"}'), await health()).toBe(1);
    const ingested = await waitFor(
      'vigil scraped by Prometheus',
      async () => (((await query(`count(${filter})`)) ?? 0) > 0 ? query(`count(${filter})`) : undefined),
      60_000,
    );
    expect(ingested).toBe(classic.length);
    expect(await query('up{job="vigil"}')).toBe(1);
    const scraped = await query('scrape_samples_scraped{job="vigil"}');
    const all = await query('count({job="vigil",__name__!~"up|scrape_.*"})');
    expect(scraped).toBe(all);
    const targets = (await (await fetch(`${prometheus.url}/api/v1/targets`)).json()) as {
      data: { activeTargets: Array<{ health: string; lastError: string }> };
    };
    expect(targets.data.activeTargets.map((t) => ({ health: t.health, lastError: t.lastError }))).toEqual([{ health: 'up', lastError: '' }]);
  }, 90_000);
});
