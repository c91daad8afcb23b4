import { family, single, type Family } from '../../metrics/family.js';
import { brokenRules } from './consistency-rules.js';
import type { TeamsListing } from './tally.js';

const FROM_POLL = 'from a scheduled poll of organizations/<organization>/teams';
const TO = ['target', 'organization'] as const;

const byKey = (label: string, counts: ReadonlyMap<string, number>) => [...counts].map(([k, value]) => ({ labels: { [label]: k }, value }));

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
    samples: (l) => byKey('visibility', l.visibility),
  }),
  family<TeamsListing>({
    name: 'teams_team_users',
    help: `users-count of each team (API service accounts included), for at most max_teams teams (those that break a consistency rule first, then in listing order); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'team'],
    samples: (l) => l.kept.flatMap((t) => (t.usersCount === undefined ? [] : [{ labels: { team: t.name }, value: t.usersCount }])),
  }),
  family<TeamsListing>({
    name: 'teams_team_info',
    help: `Identity of each team (always 1; sso_team_id empty when unmapped or not reported), for the teams of teams_team_users; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'team', 'team_id', 'visibility', 'sso_team_id'],
    samples: (l) => l.kept.map((t) => ({ labels: { team: t.name, team_id: t.id, visibility: t.visibility, sso_team_id: t.ssoTeamId }, value: 1 })),
  }),
  family<TeamsListing>({
    name: 'teams_untracked_teams',
    help: `Teams beyond max_teams: counted in the organization totals but without teams_team_users, teams_team_info and teams_team_access_inconsistent series; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO],
    samples: single((l) => l.untracked),
  }),
  family<TeamsListing>({
    name: 'teams_organization_access_teams',
    help: `Number of teams holding each organization-access permission (a flag the answer left out counts as not held); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'permission'],
    samples: (l) => byKey('permission', l.held),
  }),
  family<TeamsListing>({
    name: 'teams_organization_access_reported_teams',
    help: `Number of teams whose answer carried each organization-access flag; below the team count, list answers left the flag out and teams_organization_access_teams may undercount it (see complete_access); ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'permission'],
    samples: (l) => byKey('permission', l.carried),
  }),
  family<TeamsListing>({
    name: 'teams_team_access_inconsistent',
    help: `1 for each team that breaks a consistency rule of organization access (rule names the flag held without the one it needs); absent for teams that break none; at most max_teams teams; ${FROM_POLL}.`,
    type: 'gauge',
    section: 'teams',
    labels: [...TO, 'team', 'rule'],
    samples: (l) => l.kept.flatMap((t) => brokenRules(t).map((rule) => ({ labels: { team: t.name, rule }, value: 1 }))),
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
