import { answerMemoFor, type BuildContext } from '../jobs/context.js';
import { collectPart, type Job } from '../jobs/part.js';
import type { Labels } from '../metrics/family.js';
import { renderGroup } from '../metrics/render.js';
import type { UpstreamClient } from '../upstream/client.js';
import { toUpstreamError, type UpstreamError } from '../upstream/errors.js';
import { fanOutSignal } from '../support/fan-out-signal.js';
import { callEndpoint, type Reach } from './call.js';
import { switchedOn, type AnyEndpoint, type Within } from './endpoint.js';
import { partName, type AnyStep, type CallStep, type DeriveStep, type Earlier, type Plan, type StepOutcome } from './plan.js';

/** What every plan of a collector runs with, for one target. */
export interface PlanTarget {
  readonly kind: string;
  readonly target: { readonly name: string };
  /** Labels on every part of the target's runs (`target`, and the teams' `organization`). */
  readonly context: Labels;
  /** What one run's calls share (the target's client, its credentials read once a run), made for each run. */
  readonly call: (signal: AbortSignal) => { readonly client: UpstreamClient };
  /** How the upstream's own ways of refusing are named (the secrets service's "sealed"). */
  readonly failure?: (err: UpstreamError) => UpstreamError;
}

/**
 * The steps of a plan that a target takes: those it switches on and whose condition on the target
 * holds, less those that come after a step it does not take.
 */
export function stepsFor(plan: Plan, target: object): AnyStep[] {
  const taken = new Set<AnyStep>();
  for (const s of plan.steps as readonly AnyStep[]) {
    const on = (!s.on || (s.on.test as (t: object) => boolean)(target)) && (s.kind !== 'call' || switchedOn(s.endpoint, target));
    if (on && (s.after ?? []).every((a) => taken.has(a)) && (s.kind !== 'call' || !s.within || taken.has(s.within.step as AnyStep))) taken.add(s);
  }
  return [...taken];
}

/** The job a plan makes of one target, or none when the target takes none of its calls. */
export function planJob(plan: Plan, t: PlanTarget, ctx: BuildContext): Job | undefined {
  const target = t.target as never;
  if (plan.on && !plan.on.test(target)) return undefined;
  const steps = stepsFor(plan, t.target);
  if (!steps.some((s) => s.kind === 'call')) return undefined;
  const memo = answerMemoFor(t.kind, t.target, ctx);
  const minInterval = plan.minIntervalSeconds?.(target);
  /** Each part's last success the store holds, by part: a run whose value is the same renders nothing (`collectPart`). */
  const held = new Map<string, Held>();
  return {
    collector: plan.job,
    target: t.target.name,
    schedule: plan.schedule.of(target),
    ...(minInterval === undefined ? {} : { minIntervalSeconds: minInterval }),
    run: async (signal) => {
      const call = t.call(signal);
      const reach = (client: UpstreamClient, within: Within, under: AbortSignal): Reach => ({ client, signal: under, memo, decoding: ctx, within });
      return runSteps(steps, { t, ctx, call, reach, signal, held });
    },
    committed: (outcomes) => {
      held.clear();
      for (const o of outcomes as readonly StepOutcome[])
        if (!o.error && o.value !== undefined && o.context) held.set(o.part, { value: o.value, context: o.context });
    },
  };
}

interface Held {
  readonly value: unknown;
  readonly context: Labels;
}

interface Run {
  t: PlanTarget;
  ctx: BuildContext;
  call: { readonly client: UpstreamClient };
  reach: (client: UpstreamClient, within: Within, signal: AbortSignal) => Reach;
  signal: AbortSignal;
  held: ReadonlyMap<string, Held>;
}

/** Runs each step once the steps it comes after are done; the outcomes in step order, less the parts of values without families. */
async function runSteps(steps: readonly AnyStep[], run: Run): Promise<StepOutcome[]> {
  const done = new Map<AnyStep, readonly StepOutcome[]>();
  const started = new Map<AnyStep, Promise<readonly StepOutcome[]>>();
  const earlier: Earlier = { of: (s) => (done.get(s as AnyStep) ?? []) as never };
  const start = (s: AnyStep): Promise<readonly StepOutcome[]> => {
    let p = started.get(s);
    if (!p) {
      p = Promise.all((s.after ?? []).map(start)).then(async () => {
        const outcomes = s.kind === 'derive' ? [derived(s, run, earlier)] : await called(s, run, earlier, steps);
        done.set(s, outcomes);
        return outcomes;
      });
      started.set(s, p);
    }
    return p;
  };
  const top = steps.filter((s) => s.kind === 'derive' || !s.within);
  const outcomes = await Promise.all(top.map(start));
  return top.flatMap((s, i) => (s.kind === 'derive' && s.families.length === 0 ? [] : outcomes[i]!));
}

function derived(s: DeriveStep, run: Run, earlier: Earlier): StepOutcome {
  if (s.if && !s.if.test(earlier, run.call as never)) return { part: s.name, group: new Map() };
  const value = s.value(run.t.target as never, earlier, run.call as never);
  return { part: s.name, group: renderGroup(s.families, value as never, run.t.context), value };
}

/** The endpoints called from inside a step's call, switched on for this target. */
function withinOf(parent: AnyStep, steps: readonly AnyStep[], run: Run, signal: AbortSignal): Within {
  return {
    get: (endpoint) => {
      const s = steps.find((x): x is CallStep => x.kind === 'call' && x.within?.step === parent && x.endpoint === (endpoint as unknown as AnyEndpoint));
      if (!s) return undefined;
      return (item) => fetchOne(s, run, steps, item as string, signal) as never;
    },
  };
}

function fetchOne(s: CallStep, run: Run, steps: readonly AnyStep[], item: string | undefined, signal: AbortSignal): Promise<unknown> {
  const client = s.via ? s.via.client(run.call as never, item ?? '') : run.call.client;
  const failure = run.t.failure;
  return callEndpoint(s.endpoint, run.call, item, run.reach(client, withinOf(s, steps, run, signal), signal)).catch((e: unknown) => {
    throw failure ? failure(toUpstreamError(e)) : e;
  });
}

async function called(s: CallStep, run: Run, earlier: Earlier, steps: readonly AnyStep[]): Promise<StepOutcome[]> {
  if (s.if && !s.if.test(earlier, run.call as never)) return [];
  const e = s.endpoint;
  const items: ReadonlyArray<string | undefined> = s.each ? s.each.items(run.t.target as never, earlier, run.call as never) : [undefined];
  // A step called once per item (each node of a cluster) sends its requests at once: they listen to a signal of their own.
  const fanOut = items.length > 1 ? fanOutSignal(run.signal, items.length) : { signal: run.signal, done: () => undefined };
  try {
    return await Promise.all(
      items.map(async (item) => {
        const context = { ...run.t.context, ...(item === undefined ? {} : s.each?.labels(item, earlier)), ...e.labels };
        const part = partName(s as AnyStep, item);
        const o = await collectPart({
          part,
          context,
          fetch: () => fetchOne(s, run, steps, item, fanOut.signal),
          families: e.families as never,
          up: e.up,
          notApplicable: e.notApplicable?.test,
          rendered: e.rendered?.lines as never,
          turns: run.ctx.turns,
          last: run.held.get(part),
        });
        return { ...o, context, ...(item === undefined ? {} : { item }), endpoint: e, ...(s.reportedByUp && o.error ? { reportedByUp: true as const } : {}) };
      }),
    );
  } finally {
    fanOut.done();
  }
}
