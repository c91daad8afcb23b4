import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { PageMemo } from '../../simulators/teams/page-memo.js';

interface Listing {
  data: { attributes: { name: string; 'users-count': number } }[];
  links: { self: string };
}

describe('team listings kept while the store is unchanged', () => {
  let sim: TeamsSimulator;
  const list = async (token: string, query = '?page%5Bsize%5D=10'): Promise<{ text: string; doc: Listing }> => {
    const res = await fetch(`${sim.url}/api/v2/organizations/acme/teams${query}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    return { text, doc: JSON.parse(text) as Listing };
  };
  const setUsers = async (team: string, count: number) => {
    const res = await fetch(`${sim.url}/_sim/team-users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organization: 'acme', team, count }),
    });
    expect(res.status).toBe(200);
  };

  beforeAll(async () => {
    sim = await startTeamsSimulator({ organizations: [{ name: 'acme', teams: 30, seed: 3 }], rateLimit: { perSecond: 100_000 } });
  });
  afterAll(() => sim.close());

  it('answers a membership change on the next listing, not the page kept before it', async () => {
    const owner = sim.ownerToken('acme');
    const first = await list(owner);
    expect((await list(owner)).text).toBe(first.text);
    const team = first.doc.data[0]!.attributes.name;
    const before = first.doc.data[0]!.attributes['users-count'];
    await setUsers(team, before + 3);
    const after = await list(owner);
    expect(after.doc.data[0]!.attributes['users-count']).toBe(before + 3);
  });

  it("keeps each caller's listing apart: a member sees only what a member may see", async () => {
    const owner = sim.ownerToken('acme');
    const everyTeam = await list(owner, '?page%5Bsize%5D=100');
    const member = sim.memberToken('acme', everyTeam.doc.data[1]!.attributes.name);
    const seen = await list(member, '?page%5Bsize%5D=100');
    expect(seen.doc.data.length).toBeLessThan(everyTeam.doc.data.length);
    expect((await list(owner, '?page%5Bsize%5D=100')).doc.data).toHaveLength(everyTeam.doc.data.length);
  });

  it('keeps the links of the host each caller asked', async () => {
    const owner = sim.ownerToken('acme');
    const asked = (host: string) =>
      new Promise<Listing>((resolve, reject) => {
        const req = get(`${sim.url}/api/v2/organizations/acme/teams?page%5Bsize%5D=10`, { headers: { host, authorization: `Bearer ${owner}` } }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(JSON.parse(text) as Listing));
        });
        req.on('error', reject);
      });
    expect((await asked('teams-a.example:8080')).links.self).toMatch(/^http:\/\/teams-a\.example:8080\//);
    expect((await asked('teams-b.example:8080')).links.self).toMatch(/^http:\/\/teams-b\.example:8080\//);
  });
});

describe('PageMemo', () => {
  it('renders a page once per version of the store', () => {
    const memo = new PageMemo();
    let renders = 0;
    const render = () => ({ page: ++renders });
    expect(memo.bytes(1, 'p1', render).toString()).toBe('{"page":1}');
    expect(memo.bytes(1, 'p1', render).toString()).toBe('{"page":1}');
    expect(memo.bytes(2, 'p1', render).toString()).toBe('{"page":2}');
    expect(renders).toBe(2);
  });

  it('forgets every page before keeping more than its bytes allow', () => {
    const memo = new PageMemo(30);
    memo.bytes(1, 'a', () => ({ text: 'x'.repeat(10) }));
    memo.bytes(1, 'b', () => ({ text: 'y'.repeat(10) }));
    expect(memo.size).toBe(1);
  });
});
