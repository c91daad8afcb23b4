import { parser } from '@prometheus-io/lezer-promql';

/** Metric names a PromQL expression selects, read from its syntax tree (not by regex). */
export function metricNames(expr: string): string[] {
  const tree = parser.parse(expr);
  const names = new Set<string>();
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) throw new Error(`PromQL syntax error at ${cursor.from} in: ${expr}`);
    if (cursor.name === 'VectorSelector') {
      const sel = cursor.node;
      const id = sel.getChild('Identifier');
      if (id) names.add(expr.slice(id.from, id.to));
    }
  } while (cursor.next());
  return [...names];
}

/** The family a series name belongs to (`x_bucket` → `x` for histograms). */
export function familyOf(name: string, histograms: ReadonlySet<string>): string {
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  return m && histograms.has(m[1]!) ? m[1]! : name;
}

/** A dashboard query as Prometheus would receive it from Grafana, with its variables filled in. */
export function substituteGrafanaVariables(expr: string, rateInterval = '1m', range = '1h'): string {
  return expr
    .replace(/\$__rate_interval/g, rateInterval)
    .replace(/\$__range/g, range)
    .replace(/\$(target|job|instance|cluster)\b/g, '.*');
}

/** Every vector selector of an expression with its matchers, read from the syntax tree (Grafana's `$__` intervals allowed). */
export function selectors(expr: string): Array<{ metric: string; matchers: string }> {
  const text = expr.replace(/\$__\w+/g, (v) => `${'1'.repeat(v.length - 1)}s`);
  const out: Array<{ metric: string; matchers: string }> = [];
  const c = parser.parse(text).cursor();
  do {
    if (c.name === 'VectorSelector') {
      const id = c.node.getChild('Identifier');
      const m = c.node.getChild('LabelMatchers');
      out.push({ metric: id ? text.slice(id.from, id.to) : '', matchers: m ? text.slice(m.from, m.to) : '' });
    }
  } while (c.next());
  return out;
}
