import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series, seriesOf } from '../helpers/exposition.js';
import { waitFor } from '../helpers/wait.js';

/** vigil against the team-management simulator, end to end over loopback. */

interface SimState {
  requests: Record<string, number>;
  rate_limited_total: number;
}

let sim: TeamsSimulator;
const daemons: TestDaemon[] = [];

beforeAll(async () => {
  sim = await startTeamsSimulator({
    organizations: [
      { name: 'acme', teams: 250, seed: 42 },
      { name: 'limits', teams: 250, seed: 3 },
      { name: 'faults', teams: 250, seed: 5 },
      { name: 'small', teams: 40, seed: 9 },
    ],
  });
});
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.close()));
  await admin('DELETE', '/faults/page');
  await admin('DELETE', '/faults');
  await admin('POST', '/rate-limit', { per_second: 30 });
});
afterAll(() => sim.close());

async function admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sim.url}/_sim${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}
const state = () => admin<SimState>('GET', '/state');
const listPath = (org: string) => `/api/v2/organizations/${org}/teams`;

/** A teams target entry; token is the token itself, written to a file. */
function target(name: string, org: string, token: string, extra = '', address = sim.url): string {
  return `  - name: ${name}
    address: ${address}
    organization: ${org}
    token_file: ${tempFile('token', token)}
    schedule: "${NEVER}"
${extra}`;
}

async function daemon(...targets: string[]): Promise<TestDaemon> {
  const d = await startTestDaemon(`teams:\n${targets.join('')}`);
  daemons.push(d);
  return d;
}

const L = (target: string, org: string, extra: Record<string, string> = {}) => ({ target, organization: org, ...extra });
const teamsOf = (m: Map<string, number>, t: string, org: string) =>
  (m.get(series('teams_organization_teams', L(t, org, { visibility: 'secret' }))) ?? NaN) +
  (m.get(series('teams_organization_teams', L(t, org, { visibility: 'organization' }))) ?? NaN);
/** Every teams_* series of one target. */
/** Series from the target's listing; the configured loss fraction is config, not data, and stays. */
const teamsSeries = (m: Map<string, number>, t: string) =>
  [...m.keys()].filter((k) => k.startsWith('teams_') && !k.startsWith('teams_loss_alert_ratio') && k.includes(`target="${t}"`));

describe('an organization of 250 teams in pages of 100', () => {
  it('counts exactly 250 teams from three requests', async () => {
    const before = await state();
    const d = await daemon(target('acme', 'acme', sim.ownerToken('acme')));
    const after = await state();
    expect((after.requests[listPath('acme')] ?? 0) - (before.requests[listPath('acme')] ?? 0)).toBe(3);
    const m = await d.metrics();
    expect(m.get(series('teams_up', L('acme', 'acme')))).toBe(1);
    expect(teamsOf(m, 'acme', 'acme')).toBe(250);
    expect(seriesOf(m, 'teams_team_users').size).toBe(250);
    expect(seriesOf(m, 'teams_team_info').size).toBe(250);
    expect(m.get(series('teams_listing_pages', L('acme', 'acme')))).toBe(3);
    expect(m.get(series('teams_listing_requests', L('acme', 'acme')))).toBe(3);
    expect(seriesOf(m, 'teams_organization_access_teams').size).toBe(14);
    expect(m.get(series('vigil_collector_up', { collector: 'teams', target: 'acme' }))).toBe(1);
  });

  it('shows the flags list answers leave out, with complete_access, and finds the rule breakers', async () => {
    // One show per team: raise the service's limit so the test does not take ten seconds.
    await admin('POST', '/rate-limit', { per_second: 1000 });
    const d = await daemon(target('acme', 'acme', sim.ownerToken('acme'), '    complete_access: true\n    requests_per_second: 500\n'));
    const m = await d.metrics();
    expect(m.get(series('teams_up', L('acme', 'acme')))).toBe(1);
    expect(m.get(series('teams_organization_access_reported_teams', L('acme', 'acme', { permission: 'manage-projects' })))).toBe(250);
    // The simulator stores every 60th team (offsets 7 and 37) breaking a rule: teams 8, 38, 68, ..., 248.
    const breakers = [...seriesOf(m, 'teams_team_access_inconsistent').keys()].map((k) => /team="([^"]+)"/.exec(k)?.[1]);
    expect(breakers).toEqual(['team-0008', 'team-0038', 'team-0068', 'team-0098', 'team-0128', 'team-0158', 'team-0188', 'team-0218', 'team-0248']);
    expect(m.get(series('teams_listing_requests', L('acme', 'acme')))).toBe(253);
  });
});

describe('the rate limit', () => {
  it('waits out a 429 in the middle of a listing, succeeds, and counts the 429', async () => {
    const token = sim.ownerToken('limits');
    const d = await daemon(target('limits', 'limits', token));
    const before = await state();
    const rateLimited = series('vigil_upstream_rate_limited_total', { target: 'limits' });
    expect((await d.metrics()).get(rateLimited)).toBe(0);

    // Page 2 is held back; while it is, the token's budget is used up, so page 3 gets a 429.
    await admin('POST', '/faults/page', { page: 2, delay_ms: 300 });
    const collecting = d.collect();
    const asked = async () => (await state()).requests[listPath('limits')] ?? 0;
    const wanted = (before.requests[listPath('limits')] ?? 0) + 2;
    await waitFor('pages 1 and 2 asked for', async () => ((await asked()) >= wanted ? true : undefined), 2_000, { everyMs: 10 });
    await admin('POST', '/rate-limit/exhaust', { token });
    await collecting;

    const after = await state();
    expect(after.rate_limited_total - before.rate_limited_total).toBe(1);
    const m = await d.metrics();
    expect(m.get(series('teams_up', L('limits', 'limits')))).toBe(1);
    expect(teamsOf(m, 'limits', 'limits')).toBe(250);
    expect(m.get(rateLimited)).toBe(1);
    expect(m.get(series('teams_listing_requests', L('limits', 'limits')))).toBe(4);
    expect(m.get(series('vigil_upstream_retries_total', { target: 'limits', endpoint: 'teams/list' }))).toBe(1);
  });

  it('slows down to a lower limit the service advertises, without a 429', async () => {
    await admin('POST', '/rate-limit', { per_second: 3 });
    const before = await state();
    const d = await daemon(target('small', 'small', sim.ownerToken('small'), '    page_size: 10\n'));
    const after = await state();
    expect((after.requests[listPath('small')] ?? 0) - (before.requests[listPath('small')] ?? 0)).toBe(4);
    expect(after.rate_limited_total).toBe(before.rate_limited_total);
    expect((await d.metrics()).get(series('teams_up', L('small', 'small')))).toBe(1);
  });

  it('shares one budget among targets that spend the same token', async () => {
    // 12 per second at the service, 10 per target: three targets on their own would send 30.
    await admin('POST', '/rate-limit', { per_second: 12 });
    const token = tempFile('token', sim.ownerToken('small'));
    const same = (name: string) =>
      `  - name: ${name}\n    address: ${sim.url}\n    organization: small\n    token_file: ${token}\n    schedule: "${NEVER}"\n    page_size: 8\n    requests_per_second: 10\n`;
    const before = await state();
    const d = await daemon(same('a'), same('b'), same('c'));
    const after = await state();
    expect((after.requests[listPath('small')] ?? 0) - (before.requests[listPath('small')] ?? 0)).toBe(15);
    expect(after.rate_limited_total).toBe(before.rate_limited_total);
    const m = await d.metrics();
    for (const t of ['a', 'b', 'c']) expect(teamsOf(m, t, 'small')).toBe(40);
  });
});

describe('a failed page', () => {
  it('leaves only teams_up 0: no partial counts, and the previous success is gone too', async () => {
    const token = sim.ownerToken('faults');
    const d = await daemon(target('faults', 'faults', token));
    expect(teamsSeries(await d.metrics(), 'faults').length).toBeGreaterThan(250);

    await admin('POST', '/faults/page', { page: 2, status: 500 });
    await d.collect();
    const m = await d.metrics();
    expect(teamsSeries(m, 'faults')).toEqual([series('teams_up', L('faults', 'faults'))]);
    expect(m.get(series('teams_up', L('faults', 'faults')))).toBe(0);
    expect(m.get(series('vigil_collector_failures_total', { collector: 'teams', target: 'faults', reason: 'http_5xx' }))).toBe(1);
    const failed = d.logs().find((l) => l.msg === 'collection failed');
    expect(failed).toMatchObject({ target: 'faults', reason: 'http_5xx' });
    expect(String(failed?.err)).toContain('injected page fault');
    expect(JSON.stringify(d.logs())).not.toContain(token);
  });

  it('recovers on the next successful listing', async () => {
    const d = await daemon(target('faults', 'faults', sim.ownerToken('faults')));
    await admin('POST', '/faults/page', { page: 3, status: 503 });
    await d.collect();
    expect((await d.metrics()).get(series('teams_up', L('faults', 'faults')))).toBe(0);
    await admin('DELETE', '/faults/page');
    await d.collect();
    const m = await d.metrics();
    expect(m.get(series('teams_up', L('faults', 'faults')))).toBe(1);
    expect(teamsOf(m, 'faults', 'faults')).toBe(250);
  });
});

describe('an unchanged listing', () => {
  it('keeps its series without rendering them again, through a failure and back, and shows the next change', async () => {
    const d = await daemon(target('faults', 'faults', sim.ownerToken('faults')));
    const lines = async () => {
      const m = await d.metrics();
      return new Map(teamsSeries(m, 'faults').map((k) => [k, m.get(k)]));
    };
    const first = await lines();
    expect(first.size).toBeGreaterThan(250);
    await d.collect();
    expect(await lines()).toEqual(first);

    await admin('POST', '/faults/page', { page: 2, status: 500 });
    await d.collect();
    expect([...(await lines()).keys()]).toEqual([series('teams_up', L('faults', 'faults'))]);
    // the same answers as before the failure: the lines come back, rendered again
    await admin('DELETE', '/faults/page');
    await d.collect();
    expect(await lines()).toEqual(first);

    const team = [...first.keys()].map((k) => /^teams_team_users\{.*team="([^"]+)"/.exec(k)?.[1]).find(Boolean)!;
    await admin('POST', '/team-users', { organization: 'faults', team, count: 4321 });
    await d.collect();
    expect((await lines()).get(series('teams_team_users', L('faults', 'faults', { team })))).toBe(4321);
  });
});

describe('which token', () => {
  it('a member token sees the organization teams and only its own secret team', async () => {
    const owner = sim.ownerToken('acme');
    const page = (await (await fetch(`${sim.url}${listPath('acme')}?page%5Bsize%5D=100`, { headers: { authorization: `Bearer ${owner}` } })).json()) as {
      data: { attributes: { name: string; visibility: string } }[];
    };
    const secretTeam = page.data.find((t) => t.attributes.visibility === 'secret')!.attributes.name;
    const d = await daemon(target('owner', 'acme', owner), target('member', 'acme', sim.memberToken('acme', secretTeam)));
    const m = await d.metrics();
    const vis = (t: string, visibility: string) => m.get(series('teams_organization_teams', L(t, 'acme', { visibility })));
    expect(vis('owner', 'secret')! + vis('owner', 'organization')!).toBe(250);
    expect(vis('member', 'organization')).toBe(vis('owner', 'organization'));
    expect(vis('member', 'secret')).toBe(1);
    expect(vis('owner', 'secret')).toBeGreaterThan(1);
    expect(m.has(series('teams_team_users', L('member', 'acme', { team: secretTeam })))).toBe(true);
  });
});

describe('broken upstreams', () => {
  it('times out a hung target while another target keeps working', async () => {
    const hung = await startTeamsSimulator({ organizations: [{ name: 'stuck', teams: 5 }] });
    try {
      await fetch(`${hung.url}/_sim/faults`, { method: 'POST', body: JSON.stringify({ hang: true }) });
      const d = await daemon(
        target('stuck', 'stuck', hung.ownerToken('stuck'), '    timeout: 300ms\n', hung.url),
        target('small', 'small', sim.ownerToken('small')),
      );
      const m = await d.metrics();
      expect(m.get(series('teams_up', L('stuck', 'stuck')))).toBe(0);
      expect(m.get(series('vigil_collector_failures_total', { collector: 'teams', target: 'stuck', reason: 'timeout' }))).toBe(1);
      expect(m.get(series('teams_up', L('small', 'small')))).toBe(1);
      expect(teamsOf(m, 'small', 'small')).toBe(40);
    } finally {
      await hung.close();
    }
  });

  it('reports a garbage answer as decode', async () => {
    await admin('POST', '/faults', { garbage: true });
    const d = await daemon(target('small', 'small', sim.ownerToken('small')));
    const m = await d.metrics();
    expect(m.get(series('teams_up', L('small', 'small')))).toBe(0);
    expect(m.get(series('vigil_collector_failures_total', { collector: 'teams', target: 'small', reason: 'decode' }))).toBe(1);
    expect(teamsSeries(m, 'small')).toHaveLength(1);
  });

  it('reports a wrong token as http_4xx with the service message', async () => {
    const d = await daemon(target('small', 'small', 'not-a-token'));
    expect((await d.metrics()).get(series('vigil_collector_failures_total', { collector: 'teams', target: 'small', reason: 'http_4xx' }))).toBe(1);
    expect(String(d.logs().find((l) => l.msg === 'collection failed')?.err)).toBe('teams/list: HTTP 401: unauthorized');
  });
});
