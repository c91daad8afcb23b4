import type { Plan } from '../../src/collectors/plan.js';
import { stepsFor } from '../../src/collectors/run-plan.js';

/**
 * The endpoints a target's job of `plan` calls, by id, in the plan's order: the steps the target
 * switches on and whose conditions on it hold, not those called from inside another call. What a
 * test counts parts and failures by, so that an endpoint added to a plan is counted with the rest.
 */
export const calledBy = (plan: Plan, target: object): string[] =>
  stepsFor(plan, target).flatMap((s) => (s.kind === 'call' && !s.within ? [s.endpoint.id] : []));

/**
 * How many parts of a run of `plan` call an upstream for a target, as far as the target alone says
 * (a step called once per kind counts its kinds; one that waits on an earlier answer, for its items
 * or its condition, is left out): what a run that fails as a whole fails.
 */
export function callsPerRun(plan: Plan, target: object): number {
  const nothingEarlier = { of: () => [] };
  return stepsFor(plan, target).reduce((n, s) => {
    if (s.kind !== 'call' || s.within || s.if || s.after?.length) return n;
    return n + (s.each ? s.each.items(target as never, nothingEarlier, undefined as never).length : 1);
  }, 0);
}
