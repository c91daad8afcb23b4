import { describe, expect, it } from 'vitest';
import { listTeams, type LastPass, type ListingRequest, type TeamsPage } from '../../../../src/collectors/teams/pages.js';
import { accessFlags, type Team } from '../../../../src/collectors/teams/team-resource.js';
import type { Get } from '../../../../src/collectors/endpoint.js';

/**
 * A listing's pages as the target's memo hands them out: a page whose answer did not change is the
 * same object as at the last run. Each run's pages are set by the test; `get` serves them by number.
 */
const team = (n: number): Team => ({ id: `team-${n}`, name: `t${n}`, ssoTeamId: '', usersCount: 1, visibility: 'secret', access: accessFlags({}) });
const PAGES = 5;
const pageOf = (n: number, teams: Team[]): TeamsPage => ({
  teams,
  links: null,
  meta: { pagination: { 'current-page': n, 'next-page': n < PAGES ? n + 1 : null, 'total-pages': PAGES, 'total-count': PAGES * 2 } },
});
const fresh = () => Array.from({ length: PAGES }, (_, i) => pageOf(i + 1, [team(2 * i), team(2 * i + 1)]));

function listing(last: LastPass) {
  let served: TeamsPage[] = fresh();
  const get: Get<TeamsPage> = async (more) => ({ value: served[Number(more?.page ?? 1) - 1] as TeamsPage }) as never;
  const req: ListingRequest = { id: 'teams/list', pageSize: 2, maxPages: 100, maxBytes: 1 << 30, last };
  const run = async () => {
    const l = await listTeams(get, req, () => {
      const teams: string[] = [];
      return { teams, add: (t: Team) => void teams.push(t.id) };
    });
    return l.tally.teams;
  };
  return { run, serve: (pages: TeamsPage[]) => (served = pages), served: () => served };
}

describe("a listing's last complete pass", () => {
  it('is kept, page by page, as the pages were handed over', async () => {
    const last: LastPass = { pages: [] };
    const l = listing(last);
    expect(await l.run()).toHaveLength(PAGES * 2);
    expect(last.pages).toEqual(l.served().map((p) => p.teams));
    expect(last.pages.every((p, i) => p === l.served()[i]?.teams)).toBe(true);
  });

  it('catches a changed page repeating a team of an unchanged page before it, and after it', async () => {
    for (const [changed, repeats] of [
      [4, 1],
      [1, 7],
    ] as const) {
      const last: LastPass = { pages: [] };
      const l = listing(last);
      await l.run();
      const pages = [...l.served()];
      // the page at `changed` answers anew, with a team another (unchanged) page holds
      pages[changed] = pageOf(changed + 1, [team(2 * changed), team(repeats)]);
      l.serve(pages);
      await expect(l.run()).rejects.toThrow(`teams changed during two listings in a row (team team-${repeats} on two pages)`);
    }
  });

  it('is not taken on trust for a page in another place, or from a pass that failed', async () => {
    const last: LastPass = { pages: [] };
    const l = listing(last);
    await l.run();
    const kept = last.pages;
    // pages 2 and 3 swapped: each is an object of the last pass, but not in its place
    const swapped = [...l.served()];
    [swapped[1], swapped[2]] = [pageOf(2, swapped[2]!.teams), pageOf(3, swapped[1]!.teams)];
    l.serve(swapped);
    expect(await l.run()).toEqual(['team-0', 'team-1', 'team-4', 'team-5', 'team-2', 'team-3', 'team-6', 'team-7', 'team-8', 'team-9']);
    // a pass that fails (page 5 repeats page 1's team) leaves the last complete one as it was
    const before = last.pages;
    const failing = [...l.served()];
    failing[4] = pageOf(5, [team(0), team(9)]);
    l.serve(failing);
    await expect(l.run()).rejects.toThrow(/team team-0 on two pages/);
    expect(last.pages).toBe(before);
    expect(before).not.toBe(kept);
  });

  it('spares the unchanged pages the check: they held no team twice when their pass completed', async () => {
    // A state no service can bring about (a complete pass holding a team twice), set by hand to
    // show that pages each in their place in the last pass are not checked against each other.
    const two = (n: number, teams: Team[]): TeamsPage => ({
      teams,
      links: null,
      meta: { pagination: { 'current-page': n, 'next-page': n < 2 ? 2 : null, 'total-pages': 2, 'total-count': 4 } },
    });
    const a = two(1, [team(1), team(2)]);
    const b = two(2, [team(2), team(3)]);
    const req: ListingRequest = { id: 'teams/list', pageSize: 2, maxPages: 100, maxBytes: 1 << 30 };
    const get: Get<TeamsPage> = async (more) => ({ value: Number(more?.page) === 2 ? b : a }) as never;
    const tally = () => ({ add: () => undefined });
    await expect(listTeams(get, { ...req, last: { pages: [a.teams, b.teams] } }, tally)).resolves.toMatchObject({ pages: 2 });
    await expect(listTeams(get, req, tally)).rejects.toThrow(/team team-2 on two pages/);
  });
});
