/**
 * A metric family declared once, as data: name, help, type, labels, and a pure function from an
 * input (a typed upstream status) to samples. The catalog of all families is the single source for
 * rendering, docs/metrics.md and the checks that dashboards and rules only use metrics that exist.
 */
export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  /** Values of the family's own labels; context labels (target, kind, ...) are added by the caller. */
  readonly labels?: Labels;
  readonly value: number;
}

export interface HistogramSample {
  readonly labels?: Labels;
  /** Cumulative counts, one per bound of the family, in bound order (the +Inf bucket is `count`). */
  readonly buckets: readonly number[];
  readonly sum: number;
  readonly count: number;
}

interface FamilyBase {
  readonly name: string;
  readonly help: string;
  /** Every label of the family, in exposition order, context labels included. */
  readonly labels: readonly string[];
  /** The section of docs/metrics.md the family is listed in. */
  readonly section: Section;
  /**
   * Labels of RESERVED this family carries on purpose, because they are the upstream's own identity
   * (an agent's region). A scrape whose target labels hold the same name renames it `exported_<name>`.
   */
  readonly reservedLabelsAllowed?: readonly string[];
}

export type Section = 'secrets' | 'agent' | 'teams' | 'vigil' | 'alertsink';

export interface ScalarFamily<I> extends FamilyBase {
  readonly type: 'gauge' | 'counter';
  readonly samples: (input: I) => Iterable<Sample>;
}

export interface HistogramFamily<I> extends FamilyBase {
  readonly type: 'histogram';
  readonly bounds: readonly number[];
  readonly samples: (input: I) => Iterable<HistogramSample>;
}

export type Family<I> = ScalarFamily<I> | HistogramFamily<I>;
/** A family whose input type no longer matters (catalog, docs, renderer). */
export type AnyFamily = Family<never>;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const RESERVED = new Set(['job', 'instance', 'cluster', 'region']);

/** Declares a family and checks, at load time, the naming rules of "Writing exporters". */
export function family<I>(def: Family<I>): Family<I> {
  if (!NAME.test(def.name)) throw new Error(`metric ${def.name}: invalid name`);
  const isCounter = def.type === 'counter';
  if (isCounter !== def.name.endsWith('_total')) {
    throw new Error(`metric ${def.name}: only counters end in _total, and every counter does`);
  }
  for (const l of def.labels) {
    if (!LABEL.test(l) || l.startsWith('__')) throw new Error(`metric ${def.name}: invalid label ${l}`);
    if (RESERVED.has(l) && !def.reservedLabelsAllowed?.includes(l)) throw new Error(`metric ${def.name}: label ${l} clashes with target labels`);
  }
  if (new Set(def.labels).size !== def.labels.length) throw new Error(`metric ${def.name}: duplicate label`);
  return def;
}

/** Shorthand for the common single-sample gauge: absent when `value` returns undefined. */
export function single<I>(value: (input: I) => number | boolean | undefined): (input: I) => Sample[] {
  return (input) => {
    const v = value(input);
    return v === undefined ? [] : [{ value: typeof v === 'boolean' ? Number(v) : v }];
  };
}

/** A part's `_up` gauge: 1 when its last fetch succeeded and parsed, else 0 (input: did it). */
export function upFamily(def: Pick<ScalarFamily<boolean>, 'name' | 'help' | 'section' | 'labels'>): Family<boolean> {
  return family<boolean>({ ...def, type: 'gauge', samples: single((ok) => ok) });
}

/**
 * A one-hot state set (consul_exporter style): one 0/1 sample per known state, plus the current
 * state when it is not a known one, so an unknown upstream value is exported as-is, not dropped.
 */
export function stateSet(label: string, known: readonly string[], current: string | undefined): Sample[] {
  const states = current === undefined || known.includes(current) ? known : [...known, current];
  return states.map((s) => ({ labels: { [label]: s }, value: s === current ? 1 : 0 }));
}
