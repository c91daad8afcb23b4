import { family, single, type Family } from '../../metrics/family.js';
import { ORGANIZATION_ACCESS, carries, holds, type OrganizationAccess, type Team } from '../../upstream/teams/team-resource.js';

/** One organization's teams from one complete listing: pure mapping to samples. */
export interface TeamsListing {
  teams: readonly Team[];
  /** Pages and HTTP requests (retries and team shows included) the listing took. */
  pages: number;
  requests: number;
  /** Teams with their own series; the rest are only counted. */
  maxTeams: number;
  /** Name of the team whose users are an organization's owners. */
  ownersTeam?: string;
}

const FROM_POLL = 'from a scheduled poll of organizations/<organization>/teams';
const TO = ['target', 'organization'] as const;

export const VISIBILITIES = ['secret', 'organization'] as const;

/** The spec's consistency rules: `when` may only be held together with `needs`. */
export const CONSISTENCY_RULES = [
  { rule: 'manage-projects-without-manage-workspaces', when: 'manage-projects', needs: 'manage-workspaces' },
  { rule: 'read-projects-without-read-workspaces', when: 'read-projects', needs: 'read-workspaces' },
] as const satisfies readonly { rule: string; when: OrganizationAccess; needs: OrganizationAccess }[];

/** The rules a team breaks (flags an answer left out count as not held). */
export function brokenRules(t: Team): string[] {
  return CONSISTENCY_RULES.filter((r) => holds(t, r.when) && !holds(t, r.needs)).map((r) => r.rule);
}

const tracked = (l: TeamsListing) => l.teams.slice(0, l.maxTeams);

function countBy<K extends string>(keys: readonly K[], teams: readonly Team[], has: (t: Team, k: K) => boolean): Map<K, number> {
  const counts = new Map<K, number>(keys.map((k) => [k, 0]));
  for (const t of teams) for (const k of keys) if (has(t, k)) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts;
}

export const teamsUp = family<boolean>({
  name: 'teams_up',
  help: `1 when the last scheduled listing of the organization's teams succeeded on every page and parsed, else 0.`,
  type: 'gauge',
  section: 'teams',
  labels: [...TO],
  samples: single((ok) => ok),
});

export const teamsFamilies: readonly Family<TeamsListing>[] = [
  family<TeamsListing>({
    name: 'teams_organization_teams',
    help: `Number of teams the token sees, by visibility (secret and organization always present); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'visibility'],
    samples: (l) => {
      const counts = new Map<string, number>(VISIBILITIES.map((v) => [v, 0]));
      for (const t of l.teams) counts.set(t.visibility, (counts.get(t.visibility) ?? 0) + 1);
      return [...counts].map(([visibility, value]) => ({ labels: { visibility }, value }));
    },
  }),
  family<TeamsListing>({
    name: 'teams_team_users',
    help: `users-count of each team (API service accounts included), for the first max_teams teams; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'team'],
    samples: (l) => tracked(l).flatMap((t) => (t.usersCount === undefined ? [] : [{ labels: { team: t.name }, value: t.usersCount }])),
  }),
  family<TeamsListing>({
    name: 'teams_team_info',
    help: `Identity of each team (always 1; sso_team_id empty when unmapped or not reported), for the first max_teams teams; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'team', 'team_id', 'visibility', 'sso_team_id'],
    samples: (l) => tracked(l).map((t) => ({ labels: { team: t.name, team_id: t.id, visibility: t.visibility, sso_team_id: t.ssoTeamId }, value: 1 })),
  }),
  family<TeamsListing>({
    name: 'teams_untracked_teams',
    help: `Teams beyond max_teams: counted in the organization totals but without teams_team_users and teams_team_info series; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO],
    samples: single((l) => Math.max(0, l.teams.length - l.maxTeams)),
  }),
  family<TeamsListing>({
    name: 'teams_organization_access_teams',
    help: `Number of teams holding each organization-access permission (a flag the answer left out counts as not held); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'permission'],
    samples: (l) => [...countBy(ORGANIZATION_ACCESS, l.teams, holds)].map(([permission, value]) => ({ labels: { permission }, value })),
  }),
  family<TeamsListing>({
    name: 'teams_organization_access_reported_teams',
    help: `Number of teams whose answer carried each organization-access flag; below the team count, list answers left the flag out and teams_organization_access_teams may undercount it (see complete_access); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'permission'],
    samples: (l) => [...countBy(ORGANIZATION_ACCESS, l.teams, carries)].map(([permission, value]) => ({ labels: { permission }, value })),
  }),
  family<TeamsListing>({
    name: 'teams_team_access_inconsistent',
    help: `1 for each team that breaks a consistency rule of organization access (rule names the flag held without the one it needs); absent for teams that break none; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'team', 'rule'],
    samples: (l) => l.teams.flatMap((t) => brokenRules(t).map((rule) => ({ labels: { team: t.name, rule }, value: 1 }))),
  }),
  family<TeamsListing>({
    name: 'teams_listing_pages',
    help: `Pages the last successful listing read; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO],
    samples: single((l) => l.pages),
  }),
  family<TeamsListing>({
    name: 'teams_listing_requests',
    help: `HTTP requests the last successful listing sent, rate-limit retries and team shows included; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO],
    samples: single((l) => l.requests),
  }),
];
