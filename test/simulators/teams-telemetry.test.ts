import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { promtoolCheckMetrics } from '../helpers/tools.js';

const REAL_NAME_LINT = 'tfc_terraform_agent_count non-histogram and non-summary metrics should not have "_count" suffix';

interface Telemetry {
  organization: string;
  organization_id: string;
  token: string;
  path: string;
}

/** `tfc_terraform_agent_count{...status="errored"...}` → its value; the families as HCP Terraform documents them. */
const value = (text: string, family: string, match: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${family}{`) && l.includes(match));
  if (!line) throw new Error(`no ${family} sample with ${match}`);
  return Number(line.split(' ').at(-1));
};

describe('teams simulator: the hosted service’s metrics service', () => {
  let sim: TeamsSimulator;
  let orgs: Telemetry[];
  const scrape = (path: string, token?: string) => fetch(`${sim.url}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const admin = (body: unknown) => fetch(`${sim.url}/_sim/telemetry`, { method: 'POST', body: JSON.stringify(body) });

  beforeAll(async () => {
    sim = await startTeamsSimulator({
      organizations: [
        { name: 'acme', teams: 3, seed: 1 },
        { name: 'globex', teams: 2, seed: 2 },
      ],
    });
    orgs = (await (await fetch(`${sim.url}/_sim/telemetry`)).json()) as Telemetry[];
  });
  afterAll(() => sim.close());

  it('serves each organization its agents per pool and status and its runs by status, in valid Prometheus text', async () => {
    const { path, token, organization_id: id } = orgs[0]!;
    expect(path).toBe(`/telemetry/hcpt/${id}/metrics`);
    const r = await scrape(path, token);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await r.text();
    // The one lint finding is the vendor's own name (a gauge ending in _count); promtool exits 3 on
    // lint findings alone and 1 on a parse error.
    const check = promtoolCheckMetrics(text);
    expect(check.output).toBe(REAL_NAME_LINT);
    expect(check.status).toBe(3);
    for (const status of ['idle', 'busy', 'unknown', 'errored', 'exited']) {
      expect(text).toContain(`tfc_terraform_agent_count{agent_pool_id="apool-default",organization_id="${id}",status="${status}"}`);
    }
    expect(text).toContain('# TYPE terraform_run_status_total counter');
    expect(value(text, 'terraform_run_status_total', 'run_status="errored"')).toBe(0);
  });

  it('moves the numbers when a pool’s agents and a workspace’s runs error', async () => {
    const { organization, path, token } = orgs[0]!;
    const before = await (await scrape(path, token)).text();
    expect((await admin({ organization, errored_agents: 2, errored_runs: 5 })).status).toBe(200);
    const after = await (await scrape(path, token)).text();
    expect(value(after, 'tfc_terraform_agent_count', 'status="errored"')).toBe(2);
    expect(value(after, 'tfc_terraform_agent_count', 'status="idle"')).toBe(value(before, 'tfc_terraform_agent_count', 'status="idle"') - 2);
    expect(value(after, 'terraform_run_status_total', 'run_status="errored"')).toBe(5);
    expect((await admin({ organization, errored_agents: 0 })).status).toBe(200);
    expect(value(await (await scrape(path, token)).text(), 'tfc_terraform_agent_count', 'status="errored"')).toBe(0);
  });

  it('refuses a missing or unknown token (401) and another organization’s (403)', async () => {
    expect(orgs.length).toBeGreaterThan(1);
    const [a, b] = orgs as [Telemetry, Telemetry];
    expect((await scrape(a.path)).status).toBe(401);
    expect((await scrape(a.path, 'hcpt_nope.nope')).status).toBe(401);
    expect((await scrape(a.path, sim.ownerToken(a.organization))).status).toBe(401);
    expect((await scrape(a.path, b.token)).status).toBe(403);
    expect((await scrape('/telemetry/hcpt/org-unknown/metrics', a.token)).status).toBe(404);
  });

  it('rejects a fault it cannot apply', async () => {
    expect((await admin({ organization: 'nope', errored_agents: 1 })).status).toBe(404);
    expect((await admin({ organization: orgs[0]!.organization, errored_agents: -1 })).status).toBe(400);
  });
});
