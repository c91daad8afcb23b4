import { hashString, randomString, seededRng, type Rng } from './random.js';
import type { Organization, OrganizationAccess, Principal, Team, User, Visibility } from './model.js';
import { OWNERS_TEAM, noOrganizationAccess } from './model.js';

/** Everything a team is made of, apart from what the store assigns (id, organization, members). */
export interface NewTeam {
  name: string;
  ssoTeamId?: string | null;
  visibility?: Visibility;
  allowMemberTokenManagement?: boolean;
  access?: Partial<OrganizationAccess>;
  createdAt?: string;
}

export type TeamChanges = Partial<Omit<NewTeam, 'createdAt'>>;

/** Tokens shaped like the hosted service's (`<14>.atlasv1.<67>`), so log redaction is exercised realistically. */
function newToken(rng: Rng): string {
  return `${randomString(rng, 14)}.atlasv1.${randomString(rng, 67)}`;
}

/**
 * Organizations, teams, users and tokens, kept in memory and indexed once so that listing a large
 * organization costs a filter and a slice, never a regeneration. It does not validate: the API
 * validates before calling it, and the generator deliberately stores teams the API would reject.
 */
export class TeamStore {
  private readonly orgs = new Map<string, Organization>();
  private readonly teamsById = new Map<string, Team>();
  private readonly principals = new Map<string, Principal>();
  private changes = 0;

  /** Grows with every change of an organization, team, user or membership: what was rendered before is stale. */
  get version(): number {
    return this.changes;
  }

  addOrganization(name: string, seed: number): Organization {
    this.changes += 1;
    if (this.orgs.has(name)) throw new Error(`organization ${name} already exists`);
    const rng = seededRng(hashString(name) ^ seed);
    const org: Organization = { name, ownerToken: newToken(rng), teams: [], teamsByName: new Map(), users: new Map(), rng };
    this.orgs.set(name, org);
    this.principals.set(org.ownerToken, { kind: 'owner', organization: name });
    return org;
  }

  organization(name: string): Organization | undefined {
    return this.orgs.get(name);
  }

  organizations(): Organization[] {
    return [...this.orgs.values()];
  }

  principal(token: string): Principal | undefined {
    return this.principals.get(token);
  }

  team(id: string): Team | undefined {
    return this.teamsById.get(id);
  }

  teamByName(org: Organization, name: string): Team | undefined {
    return org.teamsByName.get(name.toLowerCase());
  }

  isNameTaken(org: Organization, name: string, exceptTeamId?: string): boolean {
    const existing = this.teamByName(org, name);
    return existing !== undefined && existing.id !== exceptTeamId;
  }

  insertTeam(org: Organization, fields: NewTeam): Team {
    this.changes += 1;
    const team: Team = {
      id: this.unusedId(org, 'team-', (id) => this.teamsById.has(id)),
      organization: org.name,
      name: fields.name,
      ssoTeamId: fields.ssoTeamId ?? null,
      visibility: fields.visibility ?? 'secret',
      allowMemberTokenManagement: fields.allowMemberTokenManagement ?? true,
      access: { ...noOrganizationAccess(), ...fields.access },
      memberIds: [],
      createdAt: fields.createdAt ?? new Date().toISOString(),
    };
    org.teams.push(team);
    org.teamsByName.set(team.name.toLowerCase(), team);
    this.teamsById.set(team.id, team);
    return team;
  }

  updateTeam(team: Team, changes: TeamChanges): void {
    this.changes += 1;
    const org = this.orgOf(team);
    if (changes.name !== undefined && changes.name !== team.name) {
      org.teamsByName.delete(team.name.toLowerCase());
      team.name = changes.name;
      org.teamsByName.set(team.name.toLowerCase(), team);
    }
    if (changes.ssoTeamId !== undefined) team.ssoTeamId = changes.ssoTeamId;
    if (changes.visibility !== undefined) team.visibility = changes.visibility;
    if (changes.allowMemberTokenManagement !== undefined) team.allowMemberTokenManagement = changes.allowMemberTokenManagement;
    if (changes.access !== undefined) team.access = { ...team.access, ...changes.access };
  }

  deleteTeam(team: Team): void {
    this.changes += 1;
    const org = this.orgOf(team);
    org.teams.splice(org.teams.indexOf(team), 1);
    org.teamsByName.delete(team.name.toLowerCase());
    this.teamsById.delete(team.id);
    for (const userId of team.memberIds) org.users.get(userId)?.teamIds.delete(team.id);
  }

  addUser(org: Organization, username: string, serviceAccount = false): User {
    this.changes += 1;
    const user: User = {
      id: this.unusedId(org, 'user-', (id) => org.users.has(id)),
      username,
      email: serviceAccount ? '' : `${username}@${org.name}.example`,
      serviceAccount,
      membershipId: `ou-${randomString(org.rng, 16)}`,
      teamIds: new Set(),
    };
    org.users.set(user.id, user);
    return user;
  }

  addMember(team: Team, user: User): void {
    this.changes += 1;
    if (user.teamIds.has(team.id)) return;
    team.memberIds.push(user.id);
    user.teamIds.add(team.id);
  }

  /**
   * Sets a team's membership to `count` users, as the membership interface would: new users join at
   * the end, the last members leave first. Returns the team's users-count.
   */
  setMemberCount(orgName: string, teamName: string, count: number): number {
    this.changes += 1;
    const org = this.orgs.get(orgName);
    const team = org ? this.teamByName(org, teamName) : undefined;
    if (!org || !team) throw new Error(`no team ${teamName} in ${orgName}`);
    while (team.memberIds.length > count) org.users.get(team.memberIds.pop()!)?.teamIds.delete(team.id);
    while (team.memberIds.length < count) this.addMember(team, this.addUser(org, `${team.name}-user-${team.memberIds.length + 1}`));
    return team.memberIds.length;
  }

  /**
   * A token of a (human) user who belongs to `teamName` and to no other team. Generated teams have
   * such a user whenever they have members; for a team without one, a user is added to it (its
   * users-count grows by one), as an owner would do before handing out access.
   */
  memberToken(orgName: string, teamName: string): string {
    const org = this.orgs.get(orgName);
    if (!org) throw new Error(`no organization ${orgName}`);
    const team = this.teamByName(org, teamName);
    if (!team) throw new Error(`no team ${teamName} in ${orgName}`);
    let user = team.memberIds.map((id) => org.users.get(id)).find((u): u is User => u !== undefined && !u.serviceAccount && u.teamIds.size === 1);
    if (!user) {
      user = this.addUser(org, `${team.name}-member`);
      this.addMember(team, user);
    }
    if (!user.token) {
      user.token = newToken(org.rng);
      const owner = team.name.toLowerCase() === OWNERS_TEAM;
      this.principals.set(user.token, owner ? { kind: 'owner', organization: org.name } : { kind: 'member', organization: org.name, userId: user.id });
    }
    return user.token;
  }

  /** Owners see every team of their organization; members see `organization` teams and their own secret ones. */
  canSee(principal: Principal, team: Team): boolean {
    if (principal.organization !== team.organization) return false;
    if (principal.kind === 'owner' || team.visibility === 'organization') return true;
    return this.orgOf(team).users.get(principal.userId)?.teamIds.has(team.id) ?? false;
  }

  private orgOf(team: Team): Organization {
    const org = this.orgs.get(team.organization);
    if (!org) throw new Error(`team ${team.id} belongs to a missing organization`);
    return org;
  }

  private unusedId(org: Organization, prefix: string, taken: (id: string) => boolean): string {
    for (;;) {
      const id = `${prefix}${randomString(org.rng, 16)}`;
      if (!taken(id)) return id;
    }
  }
}
