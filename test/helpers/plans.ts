import type { Plan } from '../../src/collectors/plan.js';
import { stepsFor } from '../../src/collectors/run-plan.js';

/**
 * The endpoints a target's job of `plan` calls, by id, in the plan's order: the steps the target
 * switches on and whose conditions on it hold, not those called from inside another call. What a
 * test counts parts and failures by, so that an endpoint added to a plan is counted with the rest.
 */
export const calledBy = (plan: Plan, target: object): string[] =>
  stepsFor(plan, target).flatMap((s) => (s.kind === 'call' && !s.within ? [s.endpoint.id] : []));
