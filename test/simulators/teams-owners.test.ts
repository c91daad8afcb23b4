import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';

/** An organization's owners team (`owners` in a scenario): what TeamsOwnersDropped watches. */
let sim: TeamsSimulator;
beforeAll(async () => {
  sim = await startTeamsSimulator({ organizations: [{ name: 'org', teams: 4, seed: 5, owners: 3 }] });
});
afterAll(() => sim?.close());

const json = async (path: string, token?: string, body?: unknown): Promise<Record<string, unknown>> => {
  const res = await fetch(`${sim.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status, path).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};
type Listing = { data: Array<{ attributes: Record<string, unknown> }>; meta: { pagination: Record<string, number> } };
const owners = async () => ((await json('/api/v2/organizations/org/teams?filter%5Bnames%5D=owners', sim.ownerToken('org'))) as Listing).data;

describe('the owners team', () => {
  it('is secret, after the generated teams, with users of its own', async () => {
    expect((await owners()).map((t) => t.attributes)).toMatchObject([{ name: 'owners', visibility: 'secret', 'users-count': 3 }]);
  });

  it("makes its members' tokens act as an owner: they see every team, the secret ones too", async () => {
    const { token } = await json('/_sim/member-token', undefined, { organization: 'org', team: 'owners' });
    const seen = (await json('/api/v2/organizations/org/teams', String(token))) as Listing;
    expect(seen.meta.pagination['total-count']).toBe(5);
  });

  it('loses its members through the fault that sets a team’s users', async () => {
    await json('/_sim/team-users', undefined, { organization: 'org', team: 'owners', count: 0 });
    expect((await owners())[0]?.attributes['users-count']).toBe(0);
  });
});
