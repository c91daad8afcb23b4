import { encodeLines, joinLines, type GroupLines } from '../metrics/encoded-lines.js';
import type { Family, Labels, Sample } from '../metrics/family.js';
import type { Turns } from '../support/turns.js';
import { mergeGroups, renderGroup, renderSamples, type RenderedGroup } from '../metrics/render.js';
import { toUpstreamError, type UpstreamError } from '../upstream/errors.js';
import { sameValue } from '../support/same-value.js';

/**
 * What one part of a collection (one endpoint, one replication kind) produced: the group of samples
 * that replaces the part's previous group in the store, and the failure if there was one.
 */
export interface PartOutcome<T = unknown> {
  readonly part: string;
  readonly group: RenderedGroup;
  readonly error?: UpstreamError;
  /** The fetched value after a success, for state derived across targets in `afterCommit`. */
  readonly value?: T;
  /** The upstream said this part does not apply to it (a client agent has no gossip pool): no series, no failure. */
  readonly notApplicable?: true;
  /** How the upstream said so (a 403, a 404), for what is derived from the refusal; never counted as a failure. */
  readonly refusal?: UpstreamError;
  /**
   * The failure is the upstream's own, and the part's `_up` reports it (a node of a cluster that does
   * not answer): counted by reason and logged, but the collector itself did not fail.
   */
  readonly reportedByUp?: true;
  /**
   * The value is the same as the part's last committed one (`PartSpec.last`): its lines would be
   * the same, so none are rendered (`group` is empty) and the store keeps the group it holds.
   */
  readonly unchanged?: true;
}

/** One scheduled job: one collector for one target. */
export interface Job {
  /** `collector` label value, e.g. `secrets_replication`. */
  readonly collector: string;
  readonly target: string;
  /** node-cron expression. */
  readonly schedule: string;
  /** Fetches and maps; must not touch the store (the runner commits, unless the run was aborted). */
  run(signal: AbortSignal): Promise<PartOutcome[]>;
  /** Runs after the outcomes are committed, for state derived across targets. */
  afterCommit?(outcomes: readonly PartOutcome[]): void;
  /** Told what the store now holds of a run (before `afterCommit`): the parts it may say are unchanged next run. */
  committed?(outcomes: readonly PartOutcome[]): void;
  /** A costly run (an operation on the upstream, not a read): POST /-/collect runs it at most this often. */
  readonly minIntervalSeconds?: number;
}

export interface PartSpec<T> {
  part: string;
  /** Labels every sample of this part carries (target, kind, ...). */
  context: Labels;
  fetch: () => Promise<T>;
  /** Pure mapping of the fetched value to samples. */
  families: readonly Family<T>[];
  /** The part's `_up` family (input: did the fetch succeed); its sample survives a failure. */
  up?: Family<boolean>;
  /**
   * Recognizes the failures by which an upstream says the part does not apply to it (e.g. an
   * endpoint that only servers answer). Such a part exports nothing, not even `_up`, and is no failure.
   */
  notApplicable?: (err: UpstreamError) => boolean;
  /** Lines rendered before (off the collection thread, for a large answer), added to the group as they are. */
  rendered?: (value: T) => RenderedGroup;
  /** Mapping a large answer takes milliseconds: with turns, it waits for one of its own (see `Turns`). */
  turns?: Turns;
  /**
   * The value of the part's last success that the store holds, with the labels it was rendered with.
   * The families are pure mappings of the value and the labels: a value the same as it (`sameValue`)
   * renders the same lines, so it is not rendered again (`unchanged`).
   */
  last?: { readonly value: T; readonly context: Labels };
}

/**
 * Fetches one part and renders it. A failure keeps only the `_up` sample (0): the part's data series
 * disappear until the next success instead of lingering as stale values that look fresh.
 */
export async function collectPart<T>(spec: PartSpec<T>): Promise<PartOutcome<T>> {
  const upGroup = (ok: boolean): RenderedGroup => (spec.up ? renderGroup([spec.up], ok, spec.context) : new Map());
  let value: T;
  try {
    value = await spec.fetch();
  } catch (e) {
    const err = toUpstreamError(e);
    if (spec.notApplicable?.(err)) return { part: spec.part, group: new Map(), notApplicable: true, refusal: err };
    return { part: spec.part, group: upGroup(false), error: err };
  }
  const last = spec.last;
  if (last && sameValue(last.value, value) && sameValue(last.context, spec.context))
    return { part: spec.part, group: new Map(), value: last.value, unchanged: true };
  await spec.turns?.take();
  let group: Map<string, GroupLines>;
  try {
    group = spec.turns ? await renderInTurns(spec.families, value, spec.context, spec.turns) : renderGroup(spec.families, value, spec.context);
    if (spec.rendered) group = mergeGroups(spec.rendered(value), group);
  } catch (e) {
    // A mapping bug must not take other parts down; report it like any failure.
    const err = toUpstreamError(e);
    return { part: spec.part, group: upGroup(false), error: Object.assign(err, { reason: 'internal' as const }) };
  }
  for (const [k, v] of upGroup(true)) group.set(k, v);
  return { part: spec.part, group, value };
}

/** Lines rendered in one turn of the event loop at most: a few milliseconds' worth. */
const LINES_PER_TURN = 2_000;

/**
 * `renderGroup` in steps of at most LINES_PER_TURN samples, taking a turn between steps: an
 * organization of thousands of teams would otherwise hold the event loop for tens of milliseconds.
 * Each step's lines are encoded as they are rendered, so the commit has nothing left to encode.
 */
export async function renderInTurns<I>(families: readonly Family<I>[], input: I, context: Labels, turns: Turns): Promise<Map<string, GroupLines>> {
  const steps = new Map<string, GroupLines[]>();
  let sinceTurn = 0;
  for (const f of families) {
    const samples = [...f.samples(input)];
    for (let i = 0; i < samples.length; i += LINES_PER_TURN) {
      const step = samples.slice(i, i + LINES_PER_TURN);
      if (sinceTurn + step.length > LINES_PER_TURN && sinceTurn > 0) {
        await turns.take();
        sinceTurn = 0;
      }
      const text = renderSamples(f as Family<never>, step as Sample[], context);
      if (text) steps.set(f.name, [...(steps.get(f.name) ?? []), encodeLines(text)]);
      sinceTurn += step.length;
    }
  }
  return new Map([...steps].map(([name, parts]) => [name, parts.length === 1 ? parts[0]! : joinLines(parts)]));
}
