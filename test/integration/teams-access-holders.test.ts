import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series } from '../helpers/exposition.js';

/**
 * A loss of access holders, made through the service's own API (team deletion) and the simulator's
 * membership control, read through vigil's real teams collector.
 */
let sim: TeamsSimulator;
let vigil: TestDaemon;
const L = { target: 'acme', organization: 'acme' };
const JSONAPI = 'application/vnd.api+json';

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${sim.url}/api/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${sim.ownerToken('acme')}`, 'content-type': JSONAPI, accept: JSONAPI },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as { data: unknown }) : { data: undefined };
};
const setOwners = async (count: number) => {
  const res = await fetch(`${sim.url}/_sim/team-users`, { method: 'POST', body: JSON.stringify({ organization: 'acme', team: 'owners', count }) });
  expect(res.status).toBe(200);
};
const teamCount = (m: Map<string, number>) =>
  (m.get(series('teams_organization_teams', { ...L, visibility: 'secret' })) ?? 0) +
  (m.get(series('teams_organization_teams', { ...L, visibility: 'organization' })) ?? 0);

beforeAll(async () => {
  sim = await startTeamsSimulator({ organizations: [{ name: 'acme', teams: 20, seed: 11 }] });
  await api('POST', '/organizations/acme/teams', { data: { type: 'teams', attributes: { name: 'owners', visibility: 'secret' } } });
  await setOwners(4);
  const token = tempFile('teams-token', sim.ownerToken('acme'));
  vigil = await startTestDaemon(
    `teams:\n  - { name: acme, address: "${sim.url}", organization: acme, token_file: ${token}, schedule: "${NEVER}", loss_alert_fraction: 0.3 }\n`,
  );
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
});

describe('access holders of an organization', () => {
  it('exports the owners team users and the configured loss fraction', async () => {
    const m = await vigil.metrics();
    expect(m.get(series('teams_owners_team_users', L))).toBe(4);
    expect(m.get(series('teams_loss_alert_ratio', L))).toBe(0.3);
    expect(teamCount(m)).toBe(21);
  });

  it('sees owners leave', async () => {
    await setOwners(1);
    await vigil.collect();
    expect((await vigil.metrics()).get(series('teams_owners_team_users', L))).toBe(1);
  });

  it('sees teams deleted through the API', async () => {
    const list = (await api('GET', '/organizations/acme/teams?page[size]=100')).data as Array<{ id: string; attributes: { name: string } }>;
    for (const t of list.filter((x) => x.attributes.name !== 'owners').slice(0, 12)) await api('DELETE', `/teams/${t.id}`);
    await vigil.collect();
    expect(teamCount(await vigil.metrics())).toBe(9);
  });

  it('leaves the owners series absent when the token sees no owners team', async () => {
    const other = await startTestDaemon(
      `teams:\n  - { name: acme, address: "${sim.url}", organization: acme, token_file: ${tempFile('t', sim.ownerToken('acme'))}, schedule: "${NEVER}", owners_team: admins }\n`,
    );
    try {
      const m = await other.metrics();
      expect(m.has(series('teams_owners_team_users', L))).toBe(false);
      expect(m.get(series('teams_loss_alert_ratio', L))).toBe(0.2);
    } finally {
      await other.close();
    }
  });
});
