import type { Organization, OrganizationAccess, User } from './model.js';
import { ORGANIZATION_ACCESS_KEYS, OWNERS_TEAM, noOrganizationAccess } from './model.js';
import { chance, randomInt, randomString, type Rng } from './random.js';
import type { TeamStore } from './store.js';
import { CONSISTENCY_RULES } from './validation.js';

const FIRST_CREATED = Date.UTC(2019, 0, 1);
const HOUR_MS = 3_600_000;

/** Members per team, skewed like real organizations: many small teams, a few empty or very large ones. */
function usersCount(rng: Rng): number {
  const r = rng();
  if (r < 0.1) return 0;
  if (r < 0.7) return randomInt(rng, 1, 10);
  if (r < 0.95) return randomInt(rng, 11, 40);
  return randomInt(rng, 41, 150);
}

function grantedAccess(rng: Rng): OrganizationAccess {
  const access = noOrganizationAccess();
  if (!chance(rng, 0.3)) return access;
  for (const key of ORGANIZATION_ACCESS_KEYS) access[key] = chance(rng, 0.3);
  for (const rule of CONSISTENCY_RULES) if (access[rule.when]) access[rule.needs] = true;
  return access;
}

/**
 * Every 60th team (offset 7 for the first rule, 37 for the second) breaks a consistency rule, as data
 * created by older releases can: consumers must cope with it, and the API would refuse to create it.
 */
function legacyBreach(index: number): OrganizationAccess | undefined {
  const rule = CONSISTENCY_RULES[index % 60 === 7 ? 0 : index % 60 === 37 ? 1 : -1];
  if (!rule) return undefined;
  return { ...noOrganizationAccess(), [rule.when]: true, [rule.needs]: false };
}

/** Fills an organization with `count` deterministic teams named team-0001, team-0002, ... */
export function populateOrganization(store: TeamStore, org: Organization, count: number): void {
  const rng = org.rng;
  const width = Math.max(4, String(count).length);
  // Shared members make users belong to several teams, as people do.
  const pool: User[] = Array.from({ length: Math.max(160, Math.ceil(count / 2)) }, (_, i) => store.addUser(org, `user-${String(i + 1).padStart(width, '0')}`));
  for (let i = 0; i < count; i++) {
    const name = `team-${String(i + 1).padStart(width, '0')}`;
    const team = store.insertTeam(org, {
      name,
      ssoTeamId: chance(rng, 0.2) ? randomString(rng, 24, '0123456789abcdef') : null,
      visibility: chance(rng, 0.45) ? 'organization' : 'secret',
      allowMemberTokenManagement: chance(rng, 0.85),
      access: legacyBreach(i) ?? grantedAccess(rng),
      createdAt: new Date(FIRST_CREATED + i * 7 * HOUR_MS + randomInt(rng, 0, HOUR_MS)).toISOString(),
    });
    const wanted = usersCount(rng);
    if (wanted === 0) continue;
    // The first member belongs to this team only, so memberToken() has a user to speak for.
    store.addMember(team, store.addUser(org, `${name}-lead`));
    if (wanted > 1 && chance(rng, 0.08)) store.addMember(team, store.addUser(org, `api-team_${randomString(rng, 8, '0123456789')}`, true));
    for (let guard = 0; team.memberIds.length < wanted && guard < wanted * 4; guard++) {
      const user = pool[Math.floor(rng() * pool.length)];
      if (user) store.addMember(team, user);
    }
  }
}

/** The organization's owners team, of `users` users of its own: added last, so the generated teams stay as they were. */
export function addOwnersTeam(store: TeamStore, org: Organization, users: number): void {
  const team = store.insertTeam(org, { name: OWNERS_TEAM, visibility: 'secret', createdAt: new Date(FIRST_CREATED).toISOString() });
  for (let i = 1; i <= users; i++) store.addMember(team, store.addUser(org, `owner-${i}`));
}
