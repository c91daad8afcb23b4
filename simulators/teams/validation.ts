import type { OrganizationAccess, OrganizationAccessKey, Team, Visibility } from './model.js';
import { ORGANIZATION_ACCESS_KEYS, VISIBILITIES, noOrganizationAccess } from './model.js';
import type { TeamChanges } from './store.js';

export interface FieldError {
  title: string;
  detail: string;
  pointer: string;
}

export type Validation = { ok: true; changes: TeamChanges } | { ok: false; errors: FieldError[] };

const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
const ATTRIBUTES = '/data/attributes';

/** The spec's two consistency rules, as data so the generator can break them on purpose. */
export const CONSISTENCY_RULES: ReadonlyArray<{ needs: OrganizationAccessKey; when: OrganizationAccessKey; detail: string }> = [
  { when: 'manage-projects', needs: 'manage-workspaces', detail: 'manage-workspaces cannot be false while manage-projects is true' },
  { when: 'read-projects', needs: 'read-workspaces', detail: 'read-workspaces must be true whenever read-projects is true' },
];

export function consistencyErrors(access: OrganizationAccess): FieldError[] {
  return CONSISTENCY_RULES.filter((r) => access[r.when] && !access[r.needs]).map((r) => ({
    title: 'invalid attribute',
    detail: `Organization access ${r.detail}`,
    pointer: `${ATTRIBUTES}/organization-access/${r.needs}`,
  }));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(detail: string, pointer: string): Validation {
  return { ok: false, errors: [{ title: 'malformed body', detail, pointer }] };
}

/**
 * Validates a create (no `current` team) or update body. Attributes the spec does not accept
 * (users-count, permissions, ...) are ignored, as JSON:API servers do with read-only members; but an
 * unknown organization-access flag is an error, because silently dropping a permission is worse.
 */
export function validateTeamBody(body: unknown, current: Team | undefined, nameTaken: (name: string) => boolean): Validation {
  if (!isObject(body) || !isObject(body.data)) return malformed('Request body must be a JSON:API document with a data object', '/data');
  const data = body.data;
  if (data.type !== 'teams') return malformed(`data.type must be "teams", got ${JSON.stringify(data.type ?? null)}`, '/data/type');
  const attributes = data.attributes ?? {};
  if (!isObject(attributes)) return malformed('data.attributes must be an object', ATTRIBUTES);

  const errors: FieldError[] = [];
  const invalid = (member: string, detail: string): void => {
    errors.push({ title: 'invalid attribute', detail, pointer: `${ATTRIBUTES}/${member}` });
  };
  const changes: TeamChanges = {};

  const name = attributes.name;
  if (name === undefined && !current) invalid('name', "Name can't be blank");
  else if (name !== undefined) {
    if (typeof name !== 'string' || name === '') invalid('name', 'Name must be a non-empty string');
    else if (!NAME_PATTERN.test(name)) invalid('name', 'Name can only contain letters, numbers, dashes and underscores');
    else if (nameTaken(name)) invalid('name', 'Name has already been taken');
    else changes.name = name;
  }

  const sso = attributes['sso-team-id'];
  if (sso !== undefined) {
    if (sso === null || typeof sso === 'string') changes.ssoTeamId = sso;
    else invalid('sso-team-id', 'sso-team-id must be a string');
  }

  const visibility = attributes.visibility;
  if (visibility !== undefined) {
    if (VISIBILITIES.includes(visibility as Visibility)) changes.visibility = visibility as Visibility;
    else invalid('visibility', `Visibility must be one of ${VISIBILITIES.join(', ')}`);
  }

  // The request table of the spec and its example payload disagree on the name; both are accepted.
  for (const member of ['allow-member-token-management', 'allow-team-token-management']) {
    const value = attributes[member];
    if (value === undefined) continue;
    if (typeof value === 'boolean') changes.allowMemberTokenManagement = value;
    else invalid(member, `${member} must be a boolean`);
  }

  const access = attributes['organization-access'];
  if (access !== undefined) {
    if (!isObject(access)) invalid('organization-access', 'organization-access must be an object');
    else {
      const accepted: Partial<OrganizationAccess> = {};
      for (const [key, value] of Object.entries(access)) {
        if (!(ORGANIZATION_ACCESS_KEYS as readonly string[]).includes(key)) invalid(`organization-access/${key}`, `Unknown organization access ${key}`);
        else if (typeof value !== 'boolean') invalid(`organization-access/${key}`, `Organization access ${key} must be a boolean`);
        else accepted[key as OrganizationAccessKey] = value;
      }
      changes.access = accepted;
      // Legacy teams may already break a rule; they are only held to it when their access is changed.
      errors.push(...consistencyErrors({ ...(current?.access ?? noOrganizationAccess()), ...accepted }));
    }
  }

  return errors.length > 0 ? { ok: false, errors } : { ok: true, changes };
}
