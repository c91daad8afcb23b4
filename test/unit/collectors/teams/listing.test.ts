import { describe, expect, it } from 'vitest';
import { ownersTeamFamily } from '../../../../src/collectors/teams/access-holders.js';
import { breaksARule, brokenRules } from '../../../../src/collectors/teams/consistency-rules.js';
import { teamsFamilies } from '../../../../src/collectors/teams/list.js';
import { countedItems } from '../../../helpers/counted-items.js';
import { TeamsTally } from '../../../../src/collectors/teams/tally.js';
import { renderGroup } from '../../../../src/metrics/render.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { parseBody } from '../../../../src/upstream/parse.js';
import { listTeamsResponse } from '../../../../src/collectors/teams/list.js';
import { ORGANIZATION_ACCESS, accessFlags, carries, holds, toTeam, type Team } from '../../../../src/collectors/teams/team-resource.js';
import { showTeamResponse } from '../../../../src/collectors/teams/show.js';
import { parseExposition, series, seriesOf } from '../../../helpers/exposition.js';
import { fixture } from '../../../helpers/fixtures.js';

const teamsOf = (...pages: string[]): Team[] =>
  pages.flatMap((p) => parseBody(listTeamsResponse, fixture(`teams/${p}`), 'organizations/teams').data.map(toTeam));
/** A listing of `teams` as its pages handed them on, of 3 pages and 4 requests. */
function listed(teams: Iterable<Team>, maxTeams = 10_000) {
  const tally = new TeamsTally(maxTeams, 'owners');
  for (const t of teams) tally.add(t);
  return tally.listing(3, 4);
}
const samples = (teams: Iterable<Team>, maxTeams?: number) =>
  parseExposition([...renderGroup([...teamsFamilies, ownersTeamFamily], listed(teams, maxTeams), { target: 't1', organization: 'acme' }).values()].join(''));
const teamsIn = (s: Map<string, number>, name: string) => [...seriesOf(s, name).keys()].map((k) => /team="([^"]+)"/.exec(k)?.[1]);
const L = (extra: Record<string, string> = {}) => ({ target: 't1', organization: 'acme', ...extra });
const ALL = ['page-1-of-3.json', 'page-2-of-3.json', 'page-3-of-3.json'];

describe('GET organizations/<org>/teams: a three-page listing', () => {
  const s = samples(teamsOf(...ALL));

  it('counts the teams of every page by visibility', () => {
    expect(s.get(series('teams_organization_teams', L({ visibility: 'secret' })))).toBe(3);
    expect(s.get(series('teams_organization_teams', L({ visibility: 'organization' })))).toBe(2);
    expect(seriesOf(s, 'teams_organization_teams').size).toBe(2);
  });

  it("exports each team's users-count under its name", () => {
    expect(Object.fromEntries([...seriesOf(s, 'teams_team_users')].map(([k, v]) => [/team="([^"]+)"/.exec(k)?.[1], v]))).toEqual({
      owners: 3,
      platform: 12,
      auditors: 0,
      'legacy-ops': 5,
      readers: 7,
    });
  });

  it('exports identity as an info metric; an unmapped team has an empty sso_team_id', () => {
    expect(
      s.get(series('teams_team_info', L({ team: 'platform', team_id: 'team-Rk2tVjyMe8LHnB9q', visibility: 'organization', sso_team_id: 'a1b2c3d4e5f6' }))),
    ).toBe(1);
    expect(s.get(series('teams_team_info', L({ team: 'owners', team_id: 'team-6p5jTwJQXwqZBncC', visibility: 'secret', sso_team_id: '' })))).toBe(1);
    expect(seriesOf(s, 'teams_team_info').size).toBe(5);
  });

  it('counts the holders of each of the 14 organization-access permissions, zeros included', () => {
    const held = Object.fromEntries([...seriesOf(s, 'teams_organization_access_teams')].map(([k, v]) => [/permission="([^"]+)"/.exec(k)?.[1], v]));
    expect(held).toEqual({
      'manage-policies': 1,
      'manage-policy-overrides': 1,
      'manage-run-tasks': 1,
      'manage-workspaces': 2,
      'manage-vcs-settings': 2,
      'manage-agent-pools': 1,
      'manage-providers': 1,
      'manage-modules': 1,
      'manage-projects': 3,
      'read-projects': 4,
      'read-workspaces': 3,
      'manage-membership': 1,
      'manage-teams': 1,
      'manage-organization-access': 1,
    });
    expect(s.get(series('teams_organization_access_reported_teams', L({ permission: 'manage-projects' })))).toBe(5);
  });

  it('marks the teams that break a consistency rule, and only those', () => {
    expect([...seriesOf(s, 'teams_team_access_inconsistent')]).toEqual([
      [series('teams_team_access_inconsistent', L({ team: 'legacy-ops', rule: 'manage-projects-without-manage-workspaces' })), 1],
      [series('teams_team_access_inconsistent', L({ team: 'readers', rule: 'read-projects-without-read-workspaces' })), 1],
    ]);
  });

  it('exports the pages and requests of the listing', () => {
    expect(s.get(series('teams_listing_pages', L()))).toBe(3);
    expect(s.get(series('teams_listing_requests', L()))).toBe(4);
    expect(s.get(series('teams_untracked_teams', L()))).toBe(0);
  });
});

describe('an older release: missing and extra attributes', () => {
  const teams = teamsOf('older-release.json');
  const s = samples(teams);

  it('parses teams without sso-team-id and allow-member-token-management, ignoring attributes the spec does not list', () => {
    expect(teams.map((t) => [t.name, t.ssoTeamId, t.usersCount, t.visibility])).toEqual([
      ['devs', '', 4, 'organization'],
      ['sec', '', 2, 'secret'],
    ]);
    expect(s.get(series('teams_team_info', L({ team: 'sec', team_id: 'team-Sc9kPm1ZxH7bVr3A', visibility: 'secret', sso_team_id: '' })))).toBe(1);
  });

  it('counts a flag the answer left out as not held, and ignores flags the spec does not list', () => {
    expect(s.get(series('teams_organization_access_teams', L({ permission: 'manage-policies' })))).toBe(1);
    expect(s.get(series('teams_organization_access_teams', L({ permission: 'manage-workspaces' })))).toBe(1);
    expect(s.get(series('teams_organization_access_teams', L({ permission: 'manage-projects' })))).toBe(0);
    expect(seriesOf(s, 'teams_organization_access_teams').size).toBe(14);
    expect([...seriesOf(s, 'teams_organization_access_teams').keys()].join()).not.toContain('manage-audit-trails');
  });

  it('says how many teams carried each flag, so a left-out flag is told apart from one nobody holds', () => {
    expect(s.get(series('teams_organization_access_reported_teams', L({ permission: 'manage-workspaces' })))).toBe(1);
    expect(s.get(series('teams_organization_access_reported_teams', L({ permission: 'manage-policies' })))).toBe(2);
    expect(s.get(series('teams_organization_access_reported_teams', L({ permission: 'manage-projects' })))).toBe(0);
  });

  it('keeps both visibilities present when one has no teams', () => {
    const onlyDevs = samples(teams.slice(0, 1));
    expect(onlyDevs.get(series('teams_organization_teams', L({ visibility: 'secret' })))).toBe(0);
    expect(onlyDevs.get(series('teams_organization_teams', L({ visibility: 'organization' })))).toBe(1);
  });
});

describe('GET teams/<id>', () => {
  it('reads every flag of a show answer', () => {
    const t = toTeam(parseBody(showTeamResponse, fixture('teams/show-team.json'), 'teams/show').data);
    expect(ORGANIZATION_ACCESS.filter((k) => carries(t, k))).toHaveLength(14);
    expect(t.ssoTeamId).toBe('0ff1ce');
    expect(brokenRules(t)).toEqual(['manage-projects-without-manage-workspaces']);
  });
});

describe('consistency rules', () => {
  const team = (flags: Record<string, boolean>): Team => ({
    id: 'team-x',
    name: 'x',
    ssoTeamId: '',
    usersCount: 1,
    visibility: 'secret',
    access: accessFlags(flags),
  });

  it.each([
    [{ 'manage-projects': true, 'manage-workspaces': false }, ['manage-projects-without-manage-workspaces']],
    [{ 'manage-projects': true }, ['manage-projects-without-manage-workspaces']],
    [{ 'manage-projects': true, 'manage-workspaces': true }, []],
    [{ 'manage-projects': false, 'manage-workspaces': false }, []],
    [{ 'read-projects': true, 'read-workspaces': false }, ['read-projects-without-read-workspaces']],
    [{ 'read-projects': true, 'read-workspaces': true }, []],
    [{ 'read-workspaces': true }, []],
    [{ 'manage-projects': true, 'read-projects': true }, ['manage-projects-without-manage-workspaces', 'read-projects-without-read-workspaces']],
  ])('%j breaks %j', (flags, rules) => {
    expect(brokenRules(team(flags))).toEqual(rules);
  });

  it('tells a team that breaks a rule on its bits as the rules do, for every combination of flags held', () => {
    const all = 1 << ORGANIZATION_ACCESS.length;
    const byRules = (held: number) => brokenRules({ ...team({}), access: { sent: all - 1, held } }).length > 0;
    const mismatched = Array.from({ length: all }, (_, held) => held).filter(
      (held) => breaksARule({ ...team({}), access: { sent: all - 1, held } }) !== byRules(held),
    );
    expect(mismatched).toEqual([]);
    expect(Array.from({ length: all }, (_, held) => held).filter(byRules).length).toBeGreaterThan(all / 4);
  });
});

describe('the kept teams rendered as they are read', () => {
  it("makes each per-team family's samples one team at a time, never as a list first", () => {
    const perTeam = teamsFamilies.filter((f) => f.labels.includes('team'));
    expect(perTeam.map((f) => f.name)).toEqual(['teams_team_users', 'teams_team_info', 'teams_team_access_inconsistent']);
    for (const f of perTeam) {
      // Each team breaks a rule, so that every family has a sample for it.
      const kept = countedItems(1_000, (i) => ({
        id: `team-${i}`,
        name: `team-${i}`,
        ssoTeamId: '',
        usersCount: 3,
        visibility: 'secret',
        access: accessFlags({ 'manage-projects': true }),
      }));
      const listing = {
        visibility: new Map(),
        held: new Map(),
        carried: new Map(),
        kept: kept.items as never,
        untracked: 0,
        ownersTeamUsers: undefined,
        pages: 1,
        requests: 1,
      };
      const samples = f.samples(listing)[Symbol.iterator]();
      expect(samples.next().value).toMatchObject({ labels: { team: 'team-0' } });
      expect(kept.read()).toBe(1);
    }
  });
});

describe('the counts of flags held and carried', () => {
  it('counts every flag, the last one too, as each team says it', () => {
    // every pattern of carried and held flags, over teams of every visibility
    const teams: Team[] = Array.from({ length: 700 }, (_, i) => {
      const flags: Record<string, boolean> = {};
      ORGANIZATION_ACCESS.forEach((k, j) => {
        if ((i * 31 + j * 7) % 3) flags[k] = (i + j) % 5 < 2;
      });
      return { id: `team-${i}`, name: `t${i}`, ssoTeamId: '', usersCount: i, visibility: i % 3 ? 'organization' : 'secret', access: accessFlags(flags) };
    });
    const l = listed(teams);
    for (const k of ORGANIZATION_ACCESS) {
      expect([k, l.held.get(k)]).toEqual([k, teams.filter((t) => holds(t, k)).length]);
      expect([k, l.carried.get(k)]).toEqual([k, teams.filter((t) => carries(t, k)).length]);
    }
    expect(l.held.get('manage-organization-access')).toBeGreaterThan(0);
  });
});

describe('max_teams', () => {
  const s = samples(teamsOf(...ALL), 2);

  it('gives series of their own to at most max_teams teams, those that break a consistency rule first, and counts the rest', () => {
    expect(teamsIn(s, 'teams_team_users')).toEqual(['legacy-ops', 'readers']);
    expect(teamsIn(s, 'teams_team_info')).toEqual(['legacy-ops', 'readers']);
    expect(s.get(series('teams_untracked_teams', L()))).toBe(3);
  });

  it('fills the places the rule breakers leave in listing order', () => {
    expect(teamsIn(samples(teamsOf(...ALL), 3), 'teams_team_users')).toEqual(['legacy-ops', 'readers', 'owners']);
  });

  it('still counts every team in the organization totals, and finds the owners team past the cap', () => {
    expect(s.get(series('teams_organization_teams', L({ visibility: 'secret' })))).toBe(3);
    expect(s.get(series('teams_organization_access_teams', L({ permission: 'manage-projects' })))).toBe(3);
    expect(samples(teamsOf(...ALL), 0).get(series('teams_owners_team_users', L()))).toBe(3);
  });

  it('caps the rule breakers too: a breaker past max_teams is counted, without a series', () => {
    const one = samples(teamsOf(...ALL), 1);
    expect(teamsIn(one, 'teams_team_access_inconsistent')).toEqual(['legacy-ops']);
    expect(one.get(series('teams_untracked_teams', L()))).toBe(4);
  });

  it('holds max_teams teams of an organization of 100,000, whatever their order', () => {
    const [readers] = teamsOf('page-3-of-3.json');
    const l = listed(
      (function* () {
        for (let i = 0; i < 100_000; i++) yield { ...readers!, id: `team-${i}`, name: `t${i}` };
      })(),
      10,
    );
    expect(l.kept).toHaveLength(10);
    expect(l.untracked).toBe(99_990);
    expect(l.visibility.get(readers!.visibility)).toBe(100_000);
  });
});

describe('what the schema refuses, and what it reads without', () => {
  const withTeam = (patch: (t: Record<string, unknown>) => void) => {
    const doc = structuredClone(fixture('teams/page-3-of-3.json')) as { data: { attributes: Record<string, unknown> }[] };
    patch(doc.data[0]!.attributes);
    return () => parseBody(listTeamsResponse, doc, 'organizations/teams');
  };

  it('reads a team without users-count, without its count', () => {
    expect(withTeam((a) => delete a['users-count'])().data[0]?.attributes['users-count']).toBeUndefined();
  });

  it('names the field of a team without a name', () => {
    expect(withTeam((a) => delete a.name)).toThrow(UpstreamError);
    expect(withTeam((a) => delete a.name)).toThrow(/data\.0\.attributes\.name/);
  });

  it('takes a flag that is not a boolean as not sent', () => {
    const access = withTeam((a) => ((a['organization-access'] as Record<string, unknown>)['manage-teams'] = 'yes'))().data[0]?.attributes[
      'organization-access'
    ];
    expect(access).toBeDefined();
    expect(carries({ access } as Team, 'manage-teams')).toBe(false);
  });

  it('accepts a users-count sent as a string', () => {
    const doc = withTeam((a) => (a['users-count'] = '7'))();
    expect(doc.data[0]?.attributes['users-count']).toBe(7);
  });
});
