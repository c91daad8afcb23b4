import { holds, type OrganizationAccess, type Team } from './team-resource.js';

/** The spec's consistency rules: `when` may only be held together with `needs`. */
export const CONSISTENCY_RULES = [
  { rule: 'manage-projects-without-manage-workspaces', when: 'manage-projects', needs: 'manage-workspaces' },
  { rule: 'read-projects-without-read-workspaces', when: 'read-projects', needs: 'read-workspaces' },
] as const satisfies readonly { rule: string; when: OrganizationAccess; needs: OrganizationAccess }[];

const breaks = (t: Team, r: (typeof CONSISTENCY_RULES)[number]) => holds(t, r.when) && !holds(t, r.needs);

/** The rules a team breaks (flags an answer left out count as not held). */
export function brokenRules(t: Team): string[] {
  return CONSISTENCY_RULES.filter((r) => breaks(t, r)).map((r) => r.rule);
}

/** Whether a team breaks any rule, without listing them: asked of every team of a listing. */
export function breaksARule(t: Team): boolean {
  return CONSISTENCY_RULES.some((r) => breaks(t, r));
}
