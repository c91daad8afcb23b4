import { parser } from '@prometheus-io/lezer-promql';

/**
 * Edits of PromQL text made on its syntax tree (never by regex), keeping everything else as it
 * was written: what the mixin does to the shipped rules and dashboards for a user's labels.
 */

type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

interface Edit {
  at: number;
  text: string;
  /** Characters replaced from `at` (0: an insertion). */
  cut?: number;
}

function apply(expr: string, edits: Edit[]): string {
  let out = expr;
  for (const e of [...edits].sort((a, b) => b.at - a.at)) out = out.slice(0, e.at) + e.text + out.slice(e.at + (e.cut ?? 0));
  return out;
}

/**
 * Grafana's interval variables (`[$__rate_interval]`) are not PromQL: parsed as a duration of the
 * same length, so every position found is a position in the text as written.
 */
const parseable = (expr: string) => expr.replace(/\$__\w+/g, (v) => `${'1'.repeat(v.length - 1)}s`);

function nodes(expr: string, name: string): SyntaxNode[] {
  const tree = parser.parse(parseable(expr));
  const found: SyntaxNode[] = [];
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) throw new Error(`PromQL syntax error at ${cursor.from} in: ${expr}`);
    if (cursor.name === name) found.push(cursor.node);
  } while (cursor.next());
  return found;
}

/**
 * Adds `matchers` (e.g. `job="vigil", env="prod"`) to every vector selector, except those of
 * metrics `skip` names (Prometheus' own `up`, which the job's own matcher selects).
 */
export function withMatchers(expr: string, matchers: string, skip: (metric: string) => boolean = () => false): string {
  const m = matchers.trim();
  if (m === '') return expr;
  const edits: Edit[] = [];
  for (const sel of nodes(expr, 'VectorSelector')) {
    const id = sel.getChild('Identifier');
    if (id && skip(expr.slice(id.from, id.to))) continue;
    const braces = sel.getChild('LabelMatchers');
    if (!braces) {
      edits.push({ at: sel.to, text: `{${m}}` });
      continue;
    }
    const empty = expr.slice(braces.from + 1, braces.to - 1).trim() === '';
    edits.push({ at: braces.from + 1, text: empty ? m : `${m}, ` });
  }
  return apply(expr, edits);
}

/**
 * Adds `label` to every `by (...)` and `on (...)` list, so aggregations and joins keep clusters
 * (or environments) apart, as the monitoring mixins do with their cluster label. `without` and
 * `ignoring` lists keep it by not naming it.
 */
export function withGroupingLabel(expr: string, label: string): string {
  if (label === '') return expr;
  const edits: Edit[] = [];
  for (const kind of ['AggregateModifier', 'MatchingModifierClause']) {
    for (const mod of nodes(expr, kind)) {
      if (!mod.getChild('By') && !mod.getChild('On')) continue;
      const list = mod.getChild('GroupingLabels');
      if (!list) continue;
      const names = list.getChildren('LabelName').map((n) => expr.slice(n.from, n.to));
      if (names.includes(label)) continue;
      edits.push({ at: list.to - 1, text: names.length > 0 ? `, ${label}` : label });
    }
  }
  return apply(expr, edits);
}

/** Whether a selector (`job="vigil-prod", env="prod"`) has a matcher of its own on `job`. */
export function namesJob(selector: string): boolean {
  return selector.split(',').some((m) => {
    const t = m.trim();
    return t.startsWith('job') && /^[=!]/.test(t.slice(3).trim());
  });
}

/**
 * The matchers of Prometheus' `up` for vigil's scrapes: the job's, and the selector's with it (the
 * selector's own `job` matcher, when it has one, in place of the job's). A selector that names the
 * job alone, as every other mixin's does (`up{%(nodeExporterSelector)s}`), selects vigil's `up` too.
 */
export function upMatchers(job: string, selector: string): string {
  const own = selector.trim();
  if (namesJob(own)) return own;
  return own === '' ? `job=${JSON.stringify(job)}` : `job=${JSON.stringify(job)}, ${own}`;
}

/** Sets the matchers of every `up` selector that has a `job` matcher: the scrape of vigil the rules watch (`upMatchers`). */
export function withUpJob(expr: string, job: string, selector = ''): string {
  const edits: Edit[] = [];
  for (const sel of nodes(expr, 'VectorSelector')) {
    const id = sel.getChild('Identifier');
    if (!id || expr.slice(id.from, id.to) !== 'up') continue;
    const braces = sel.getChild('LabelMatchers');
    const jobs = (braces?.getChildren('UnquotedLabelMatcher') ?? []).filter((m) => {
      const name = m.getChild('LabelName');
      return name !== null && expr.slice(name.from, name.to) === 'job';
    });
    if (braces && jobs.length) edits.push({ at: braces.from + 1, cut: braces.to - braces.from - 2, text: upMatchers(job, selector) });
  }
  return apply(expr, edits);
}

/**
 * Replaces the one number literal of `expr` whose value is `from` with `to`: a threshold written in
 * the rule with its shipped value. Refuses an expression where that number is not exactly once, as
 * the mixin could not tell which one is meant (`what` names it).
 */
export function withNumber(expr: string, from: number, to: number, what: string): string {
  if (!Number.isFinite(to)) throw new Error(`${what}: ${to} is not a number`);
  const found = nodes(expr, 'NumberDurationLiteral').filter((n) => Number(expr.slice(n.from, n.to)) === from);
  if (found.length !== 1) throw new Error(`${what}: the number ${from} is in its expression ${found.length} times, not once`);
  return from === to ? expr : apply(expr, [{ at: found[0]!.from, cut: found[0]!.to - found[0]!.from, text: String(to) }]);
}
