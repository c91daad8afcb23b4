import { z } from 'zod';
import { boolish, lenient, numberish } from '../schema-helpers.js';

/** The organization-access flags of the spec, in its order. */
export const ORGANIZATION_ACCESS = [
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
export type OrganizationAccess = (typeof ORGANIZATION_ACCESS)[number];

/**
 * `organization-access` as sent: each known flag true, false or absent (older releases and list
 * responses leave some out); flags the spec does not list are dropped.
 */
const flag = lenient(boolish);
const organizationAccess = lenient(z.object(Object.fromEntries(ORGANIZATION_ACCESS.map((k) => [k, flag])) as Record<OrganizationAccess, typeof flag>))
  .transform((a) => {
    const sent = new Map<OrganizationAccess, boolean>();
    for (const k of ORGANIZATION_ACCESS) {
      const v = a?.[k];
      if (v !== undefined) sent.set(k, v);
    }
    return sent;
  });

/**
 * A `teams` resource, tolerant of what releases differ in: `sso-team-id` and
 * `allow-member-token-management` may be missing, unknown attributes pass. Its id, type and name
 * are essential (a team without them cannot be counted or named); any other attribute that cannot
 * be read drops only the series it feeds.
 */
export const teamResource = z.object({
  id: z.string().min(1),
  type: z.literal('teams'),
  attributes: z.object({
    name: z.string().min(1),
    'sso-team-id': lenient(z.string()),
    'users-count': lenient(numberish.pipe(z.number().int().min(0))),
    visibility: lenient(z.string().min(1)).transform((v) => v ?? ''),
    'organization-access': organizationAccess,
  }),
});

export interface Team {
  id: string;
  name: string;
  /** '' when the team is not mapped to an SSO group or the release does not say. */
  ssoTeamId: string;
  /** Undefined when the answer does not say. */
  usersCount: number | undefined;
  visibility: string;
  /** The flags the answer carried; a flag not in the map was not sent. */
  access: ReadonlyMap<OrganizationAccess, boolean>;
}

export function toTeam(r: z.output<typeof teamResource>): Team {
  const a = r.attributes;
  return {
    id: r.id,
    name: a.name,
    ssoTeamId: a['sso-team-id'] ?? '',
    usersCount: a['users-count'],
    visibility: a.visibility,
    access: a['organization-access'],
  };
}

/** Whether a team holds a flag: a flag the answer did not carry counts as not held. */
export const holds = (t: Team, k: OrganizationAccess): boolean => t.access.get(k) === true;
