import type { Rng } from './random.js';

/** The organization-access flags of the spec, in the order the real service prints them. */
export const ORGANIZATION_ACCESS_KEYS = [
  'manage-policies',
  'manage-policy-overrides',
  'manage-run-tasks',
  'manage-workspaces',
  'manage-vcs-settings',
  'manage-agent-pools',
  'manage-providers',
  'manage-modules',
  'manage-projects',
  'read-projects',
  'read-workspaces',
  'manage-membership',
  'manage-teams',
  'manage-organization-access',
] as const;

export type OrganizationAccessKey = (typeof ORGANIZATION_ACCESS_KEYS)[number];
export type OrganizationAccess = Record<OrganizationAccessKey, boolean>;

export const VISIBILITIES = ['secret', 'organization'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export function noOrganizationAccess(): OrganizationAccess {
  return Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((k) => [k, false])) as OrganizationAccess;
}

export interface Team {
  readonly id: string;
  readonly organization: string;
  name: string;
  /** null when the team is not mapped to an SSO group. */
  ssoTeamId: string | null;
  visibility: Visibility;
  allowMemberTokenManagement: boolean;
  access: OrganizationAccess;
  /** In membership order; users-count is its length (service accounts included, as in the API). */
  memberIds: string[];
  readonly createdAt: string;
}

export interface User {
  readonly id: string;
  readonly username: string;
  readonly email: string;
  /** API service accounts (`api-team_<id>`) are members the UI hides but the API counts. */
  readonly serviceAccount: boolean;
  readonly membershipId: string;
  readonly teamIds: Set<string>;
  token?: string;
}

export interface Organization {
  readonly name: string;
  readonly ownerToken: string;
  /** Creation order, which is the order the list endpoint pages through. */
  readonly teams: Team[];
  /** Keyed by lower-cased name: names are unique regardless of case. */
  readonly teamsByName: Map<string, Team>;
  readonly users: Map<string, User>;
  readonly rng: Rng;
}

/** Who a bearer token speaks for. */
export type Principal =
  { readonly kind: 'owner'; readonly organization: string } | { readonly kind: 'member'; readonly organization: string; readonly userId: string };

/** The name the service gives the team whose members own the organization: their tokens act as an owner. */
export const OWNERS_TEAM = 'owners';
