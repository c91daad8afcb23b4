import { accessBit, holds, type OrganizationAccess, type Team } from './team-resource.js';

/** The spec's consistency rules: `when` may only be held together with `needs`. */
export const CONSISTENCY_RULES = [
  { rule: 'manage-projects-without-manage-workspaces', when: 'manage-projects', needs: 'manage-workspaces' },
  { rule: 'read-projects-without-read-workspaces', when: 'read-projects', needs: 'read-workspaces' },
] as const satisfies readonly { rule: string; when: OrganizationAccess; needs: OrganizationAccess }[];

/** The rules a team breaks (flags an answer left out count as not held). */
export function brokenRules(t: Team): string[] {
  return CONSISTENCY_RULES.filter((r) => holds(t, r.when) && !holds(t, r.needs)).map((r) => r.rule);
}

const RULE_MASKS = CONSISTENCY_RULES.map((r) => ({ when: accessBit(r.when), needs: accessBit(r.needs) }));

/** Whether a team breaks any rule: `brokenRules(t).length > 0` on its flags' bits, for every team of a listing. */
export function breaksARule(t: Team): boolean {
  const held = t.access.held;
  return RULE_MASKS.some((r) => (held & r.when) !== 0 && (held & r.needs) === 0);
}
