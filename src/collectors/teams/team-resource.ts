import { z } from 'zod';
import { foldLabelValue } from '../../support/label-value.js';
import { isObjectLike, lenient, lenientNonEmptyString, lenientString, numberish, readBoolish } from '../../upstream/schema-helpers.js';

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
 * responses leave some out; a flag that is not a boolean or "true"/"false" counts as absent); flags
 * the spec does not list are dropped. Read straight into the flags' bits, without a nested parse or
 * an object per team (`lenientBoolish`'s rule): a listing of 100,000 teams reads 1.4 million flags.
 */
const organizationAccess = z
  .unknown()
  .optional()
  .transform((a) => accessFlagsOf(isObjectLike(a) ? (k) => readBoolish(a[k]) : () => undefined));

/**
 * A `teams` resource, tolerant of what releases differ in: `sso-team-id` and
 * `allow-member-token-management` may be missing, unknown attributes pass. Its id, type and name
 * are essential (a team without them cannot be counted or named); any other attribute that cannot
 * be read drops only the series it feeds. Every string kept is folded to a label value's length
 * (`foldLabelValue`): a listing keeps its teams across pages, and a page of 100 names of 150,000
 * characters each must cost what 100 names cost, not 15 MB.
 */
export const teamResource = z.object({
  id: z.string().min(1).transform(foldLabelValue),
  type: z.literal('teams'),
  attributes: z.object({
    name: z.string().min(1).transform(foldLabelValue),
    'sso-team-id': lenientString.transform((v) => v && foldLabelValue(v)),
    'users-count': lenient(numberish.pipe(z.number().int().min(0))),
    visibility: lenientNonEmptyString.transform((v) => foldLabelValue(v ?? '')),
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
  access: AccessFlags;
}

/**
 * The flags an answer carried (`sent`) and, of those, the ones set (`held`): one bit each, in the
 * order of ORGANIZATION_ACCESS. Compact on purpose: tens of thousands of teams are kept for a
 * listing and moved between threads, and a map per team was most of their weight.
 */
export interface AccessFlags {
  readonly sent: number;
  readonly held: number;
}

/** Each flag's bit in `AccessFlags.sent` and `.held`: looked up for every team of a listing. */
const BITS = new Map(ORGANIZATION_ACCESS.map((k, i) => [k, 1 << i]));
const bit = (k: OrganizationAccess) => BITS.get(k) ?? 0;

/** The flags' bits from each flag's value: true held, false carried and not held, absent neither. */
function accessFlagsOf(flag: (k: OrganizationAccess) => boolean | null | undefined): AccessFlags {
  let sent = 0;
  let held = 0;
  for (let i = 0; i < ORGANIZATION_ACCESS.length; i++) {
    const v = flag(ORGANIZATION_ACCESS[i] as OrganizationAccess);
    if (v === undefined || v === null) continue;
    sent |= 1 << i;
    if (v) held |= 1 << i;
  }
  return { sent, held };
}

export const accessFlags = (flags: Partial<Record<OrganizationAccess, boolean | null | undefined>>): AccessFlags => accessFlagsOf((k) => flags[k]);

/** Whether the answer carried a flag at all. */
export const carries = (t: Team, k: OrganizationAccess): boolean => (t.access.sent & bit(k)) !== 0;

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
export const holds = (t: Team, k: OrganizationAccess): boolean => (t.access.held & bit(k)) !== 0;
