import type { Resource } from './team-resource.js';

/**
 * `current`: the hosted service as documented in 2025 (fourteen organization-access flags on show,
 * fewer on lists, `sso-team-id`, `allow-member-token-management`). `three-flags`: the service as
 * documented in 2019-2020, whose teams carry only `manage-policies`, `manage-workspaces` and
 * `manage-vcs-settings`, and neither of the two newer attributes.
 */
export const TEAMS_PROFILES = ['current', 'three-flags'] as const;
export type TeamsProfile = (typeof TEAMS_PROFILES)[number];

const THREE_FLAGS = ['manage-policies', 'manage-workspaces', 'manage-vcs-settings'];

/** A team resource as `profile` sends it. */
export function teamInProfile(team: Resource, profile: TeamsProfile): Resource {
  if (profile === 'current') return team;
  const { 'sso-team-id': _sso, 'allow-member-token-management': _allow, ...attributes } = team.attributes as Record<string, unknown>;
  const access = attributes['organization-access'] as Record<string, boolean>;
  return {
    ...team,
    attributes: { ...attributes, 'organization-access': Object.fromEntries(THREE_FLAGS.map((k) => [k, access[k] ?? false])) },
  };
}
