import { ORGANIZATION_ACCESS, type OrganizationAccess, type Team } from './team-resource.js';
import { SeriesCap } from '../../metrics/series-cap.js';
import { breaksARule } from './consistency-rules.js';

export const VISIBILITIES = ['secret', 'organization'] as const;

/** One organization's teams from one complete listing, counted as its pages arrived: pure mapping to samples. */
export interface TeamsListing {
  /** Teams by visibility (secret and organization always present). */
  visibility: ReadonlyMap<string, number>;
  /** Teams holding each organization-access flag, and teams whose answer carried it. */
  held: ReadonlyMap<OrganizationAccess, number>;
  carried: ReadonlyMap<OrganizationAccess, number>;
  /** Teams with their own series: at most max_teams, those that break a consistency rule first, then in listing order. */
  kept: readonly Team[];
  /** Teams beyond max_teams: counted, without series of their own. */
  untracked: number;
  /** The owners team's users-count: undefined when no team has that name, or its answer does not say. */
  ownersTeamUsers: number | undefined;
  /** Pages and HTTP requests (retries and team shows included) the listing took. */
  pages: number;
  requests: number;
}

const zeros = <K extends string>(keys: readonly K[]) => new Map<K, number>(keys.map((k) => [k, 0]));
const bump = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
/** Counts by flag, from counts by the flag's bit (`ORGANIZATION_ACCESS` order). */
const byFlag = (counts: readonly number[]) => new Map<OrganizationAccess, number>(ORGANIZATION_ACCESS.map((k, i) => [k, counts[i] ?? 0]));

/**
 * Takes a listing's teams one at a time and keeps only what the series need: the counts, the
 * max_teams teams with series of their own and the owners team's users-count. An organization of
 * any size costs the listing max_teams teams, not all of them.
 */
export class TeamsTally {
  private readonly visibility = zeros<string>(VISIBILITIES);
  /** By the flag's bit: a listing tallies every team of the organization, a hundred thousand at a million series. */
  private readonly held = ORGANIZATION_ACCESS.map(() => 0);
  private readonly carried = ORGANIZATION_ACCESS.map(() => 0);
  private readonly cap: SeriesCap<Team>;
  private readonly owners: string | undefined;
  private ownersTeamUsers: number | undefined;
  private ownersSeen = false;

  constructor(maxTeams: number, ownersTeam?: string) {
    this.cap = new SeriesCap<Team>(maxTeams, breaksARule);
    this.owners = ownersTeam?.toLowerCase();
  }

  add(t: Team): void {
    bump(this.visibility, t.visibility);
    const { held, sent } = t.access;
    for (let i = 0; held >> i || sent >> i; i++) {
      if ((held >> i) & 1) this.held[i] = (this.held[i] ?? 0) + 1;
      if ((sent >> i) & 1) this.carried[i] = (this.carried[i] ?? 0) + 1;
    }
    if (!this.ownersSeen && t.name.toLowerCase() === this.owners) {
      this.ownersSeen = true;
      this.ownersTeamUsers = t.usersCount;
    }
    this.cap.offer(t);
  }

  listing(pages: number, requests: number): TeamsListing {
    const { visibility, ownersTeamUsers } = this;
    return {
      visibility,
      held: byFlag(this.held),
      carried: byFlag(this.carried),
      kept: this.cap.kept(),
      untracked: this.cap.dropped,
      ownersTeamUsers,
      pages,
      requests,
    };
  }
}
