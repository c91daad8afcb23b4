import type { PartOutcome } from '../jobs/part.js';
import type { AnyFamily, Family, Labels } from '../metrics/family.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { AnyEndpoint, Endpoint } from './endpoint.js';

/**
 * A run of a job as data: the steps it takes (an endpoint called once or per item, a part derived
 * from earlier answers), what each waits for and when it applies. One runner (`run-plan.ts`)
 * executes every plan, the docs' "when" column is rendered from it, and tests read part lists and
 * counts from it. `T` is the target's config, `C` what the target's calls share in one run.
 */

/** A step's outcomes carry values of this type (a type only: no value is stored under it). */
export interface Typed<V> {
  readonly valueType?: (v: V) => void;
}

/** What a step may read of the steps it comes after: their outcomes, one per item (none for a step that did not run). */
export interface Earlier {
  of<V>(step: Typed<V>): ReadonlyArray<StepOutcome<V>>;
}

/** One part's outcome, with the item it was made for. */
export interface StepOutcome<V = unknown> extends PartOutcome<V> {
  readonly item?: string;
  /** The endpoint it called: `--config.check.probe` reports under it. */
  readonly endpoint?: AnyEndpoint;
  /** The labels its lines were rendered with. */
  readonly context?: Labels;
}

/** A condition on the target (known when the jobs are built) or on the run's earlier answers, and what it says in the docs. */
export interface Condition<A extends unknown[]> {
  readonly test: (...args: A) => boolean;
  readonly says: string;
}

interface StepBase<T, C> {
  /** The steps whose outcomes it needs: it starts when they are done, and is left out with any of them. */
  readonly after?: readonly AnyStep[];
  /** Only for targets that pass: otherwise the step is not part of the target's job. */
  readonly on?: Condition<[target: T]>;
  /** Only when the run's earlier answers say so: otherwise the run makes no part of it. */
  readonly if?: Condition<[earlier: Earlier, call: C]>;
}

/** An endpoint called once a run, or once per item (a replication kind, a node found). */
export interface CallStep<T = never, C = never> extends StepBase<T, C> {
  readonly kind: 'call';
  readonly endpoint: AnyEndpoint;
  /** Called once per item, each item's part named `<id> <item>` and labelled by `labels`. */
  readonly each?: {
    readonly says: string;
    readonly items: (target: T, earlier: Earlier, call: C) => readonly string[];
    /** The item's labels; they may read the run's earlier answers (a node's name, found with the nodes). */
    readonly labels: (item: string, earlier: Earlier) => Labels;
  };
  /** Where the request goes when not the target's address (a node's own), and what the docs say of it. */
  readonly via?: { readonly says: string; readonly client: (call: C, item: string) => UpstreamClient };
  /** A failure its `_up` reports (a node that does not answer) is the upstream's: counted, but the job did not fail. */
  readonly reportedByUp?: true;
  /** Called from inside another step's call (a team's show, within the listing), once per item that call asks for: `says` which. */
  readonly within?: { readonly step: CallStep<T, C>; readonly says: string };
}

/** A part derived from the run's earlier answers or the target (the seal, the count of leader changes), or a value without a part that later steps read. */
export interface DeriveStep<T = never, C = never> extends StepBase<T, C> {
  readonly kind: 'derive';
  /** Its part's name. */
  readonly name: string;
  /** What the part exports; none: the step is only a value for later steps. */
  readonly families: readonly AnyFamily[];
  readonly value: (target: T, earlier: Earlier, call: C) => unknown;
}

export type Step<T = never, C = never> = CallStep<T, C> | DeriveStep<T, C>;
export type AnyStep = Step;

/** One job per target: the `collector` label of its runs, its schedule, and its steps. */
export interface Plan<T = never, C = never> {
  /** The `collector` label of vigil_collector_* for its runs: `secrets_replication`. */
  readonly job: string;
  /** The target's schedule for it, and the config key that sets it (for the docs). */
  readonly schedule: { readonly of: (target: T) => string; readonly key: string };
  /** Only targets that pass get the job. */
  readonly on?: Condition<[target: T]>;
  /** A costly run (an operation on the upstream, not a read): POST /-/collect runs it at most this often. */
  readonly minIntervalSeconds?: (target: T) => number | undefined;
  /**
   * In the order their failures rank: when several parts of a run fail, the target shows the
   * failure of the step listed last (`vigil_collector_*` counts every one).
   */
  readonly steps: readonly Step<T, C>[];
}

/** An endpoint's step; its outcomes carry the endpoint's value. */
export const call = <T, C, S, P, V, K extends string>(
  endpoint: Endpoint<C, string, S, P, V, K> | Endpoint<C, never, S, P, V, K>,
  opts: Omit<CallStep<T, C>, 'kind' | 'endpoint'> = {},
): CallStep<T, C> & Typed<V> => ({ kind: 'call', endpoint: endpoint as unknown as AnyEndpoint, ...opts });

/** A derived step; its outcome carries its value. */
export const derive = <T, C, V>(
  step: Omit<DeriveStep<T, C>, 'kind' | 'families' | 'value'> & { families: readonly Family<V>[]; value: (target: T, earlier: Earlier, call: C) => V },
): DeriveStep<T, C> & Typed<V> => ({ kind: 'derive', ...step, families: step.families as readonly AnyFamily[] });

/** The families a plan's derived steps export. */
export const derivedFamilies = (plan: Plan): AnyFamily[] => plan.steps.flatMap((s) => (s.kind === 'derive' ? s.families : []));

/** The endpoints a plan calls, in step order. */
export const planEndpoints = (plan: Plan): AnyEndpoint[] => plan.steps.flatMap((s) => (s.kind === 'call' ? [s.endpoint] : []));

/** A part's name: the endpoint's id (with the item, for a step called per item), or the derived step's name. */
export const partName = (step: AnyStep, item?: string): string =>
  step.kind === 'derive' ? step.name : item === undefined ? step.endpoint.id : `${step.endpoint.id} ${item}`;

const stepName = (s: AnyStep): string => `\`${s.kind === 'derive' ? s.name : s.endpoint.id}\``;

/** When a step's endpoint is called, in the docs' words: its job and schedule, then each condition the plan declares. */
export function stepWhen(plan: Plan, step: CallStep): string {
  const after = (step.after ?? []).map(stepName);
  return [
    `each run of \`${plan.job}\` (\`${plan.schedule.key}\`)`,
    plan.on?.says,
    step.on?.says,
    step.within && `within each ${stepName(step.within.step)} call, ${step.within.says}`,
    step.each?.says,
    after.length ? `after ${after.join(', ')}` : undefined,
    step.if?.says,
    step.via?.says,
    step.endpoint.switch && 'behind its switch',
  ]
    .filter((x): x is string => Boolean(x))
    .join(', ');
}
