import type { Organization, OrganizationAccessKey, Team, User } from './model.js';
import { ORGANIZATION_ACCESS_KEYS } from './model.js';

/** JSON:API resource objects are open-ended JSON. */
export type Resource = Record<string, unknown>;

export type View = 'list' | 'show';

/**
 * List responses of the hosted service lag behind show responses: they leave out the newest
 * organization-access flags. Consumers must treat a missing flag as "unknown", not as false.
 */
const NEWEST_ACCESS_KEYS: ReadonlySet<OrganizationAccessKey> = new Set(['manage-agent-pools', 'manage-projects', 'read-projects']);

const PERMISSIONS = ['can-update-membership', 'can-destroy', 'can-update-organization-access', 'can-update-api-token', 'can-update-visibility'];

export const INCLUDABLE = ['users', 'organization-memberships'] as const;
export type Includable = (typeof INCLUDABLE)[number];

/** Parses `include` (comma list); returns undefined when any member is not includable. */
export function parseInclude(value: string | null): Set<Includable> | undefined {
  const wanted = new Set<Includable>();
  if (value === null || value === '') return wanted;
  for (const part of value.split(',')) {
    if (!(INCLUDABLE as readonly string[]).includes(part)) return undefined;
    wanted.add(part as Includable);
  }
  return wanted;
}

/** `canManage`: whether the caller is an owner; `permissions` are the caller's rights on the team. */
export function teamResource(team: Team, org: Organization, view: View, canManage: boolean): Resource {
  const members = team.memberIds.map((id) => org.users.get(id)).filter((u): u is User => u !== undefined);
  const accessKeys = view === 'list' ? ORGANIZATION_ACCESS_KEYS.filter((k) => !NEWEST_ACCESS_KEYS.has(k)) : ORGANIZATION_ACCESS_KEYS;
  return {
    id: team.id,
    type: 'teams',
    attributes: {
      name: team.name,
      ...(view === 'show' || team.ssoTeamId !== null ? { 'sso-team-id': team.ssoTeamId } : {}),
      'users-count': members.length,
      visibility: team.visibility,
      'allow-member-token-management': team.allowMemberTokenManagement,
      permissions: Object.fromEntries(PERMISSIONS.map((p) => [p, canManage])),
      'organization-access': Object.fromEntries(accessKeys.map((k) => [k, team.access[k]])),
      'created-at': team.createdAt,
    },
    relationships: {
      organization: { data: { id: org.name, type: 'organizations' } },
      users: { data: members.map((u) => ({ id: u.id, type: 'users' })) },
      'organization-memberships': { data: members.map((u) => ({ id: u.membershipId, type: 'organization-memberships' })) },
      'authentication-token': { meta: {} },
    },
    links: { self: `/api/v2/teams/${team.id}` },
  };
}

function userResource(user: User): Resource {
  return {
    id: user.id,
    type: 'users',
    attributes: {
      username: user.username,
      'is-service-account': user.serviceAccount,
      'avatar-url': `https://www.gravatar.com/avatar/${user.id}?s=100&d=mm`,
      'two-factor': { enabled: false, verified: false },
    },
    links: { self: `/api/v2/users/${user.id}` },
  };
}

function membershipResource(user: User, org: Organization): Resource {
  return {
    id: user.membershipId,
    type: 'organization-memberships',
    attributes: { status: 'active', email: user.email },
    relationships: {
      user: { data: { id: user.id, type: 'users' } },
      organization: { data: { id: org.name, type: 'organizations' } },
    },
  };
}

/** The `included` array for the given teams: each member once, however many of the teams they are in. */
export function includedResources(teams: Team[], org: Organization, include: Set<Includable>): Resource[] {
  const users = new Map<string, User>();
  for (const team of teams) {
    for (const id of team.memberIds) {
      const user = org.users.get(id);
      if (user) users.set(id, user);
    }
  }
  const out: Resource[] = [];
  if (include.has('users')) out.push(...[...users.values()].map(userResource));
  if (include.has('organization-memberships')) out.push(...[...users.values()].map((u) => membershipResource(u, org)));
  return out;
}
