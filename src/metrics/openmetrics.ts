/**
 * OpenMetrics 1.0 text, made from the classic text format, for scrapers that ask for it (Prometheus
 * does by default). Sample lines are the same in both; what differs is metadata: a counter's family
 * is named without `_total` (its samples keep it), `# UNIT` is declared where the name ends in a
 * base unit, HELP escapes double quotes too, and the body ends with `# EOF`. Only metadata lines
 * are rewritten, so the store converts its few headers once, never the samples.
 */
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';
export const EOF_LINE = '# EOF\n';

/** Base units vigil's families are named in (Prometheus "Writing exporters"), by name suffix. */
const UNITS = ['seconds', 'bytes'] as const;

const META = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) ?(.*)$/;

export function unitOf(familyName: string): string | undefined {
  return UNITS.find((u) => familyName.endsWith(`_${u}`));
}

/** Converts classic exposition text (whole families: HELP/TYPE before their samples) to OpenMetrics lines, each ending in a newline, without `# EOF`. */
export function toOpenMetrics(classic: string): string {
  const lines = classic.split('\n');
  const types = new Map<string, string>();
  for (const line of lines) {
    const m = META.exec(line);
    if (m?.[1] === 'TYPE' && m[2] && m[3] !== undefined) types.set(m[2], m[3]);
  }
  const familyName = (name: string) => (types.get(name) === 'counter' && name.endsWith('_total') ? name.slice(0, -'_total'.length) : name);
  const out: string[] = [];
  for (const line of lines) {
    // OpenMetrics has no empty lines (the classic format tolerates them between families).
    if (line === '') continue;
    const m = META.exec(line);
    if (!m || !m[2]) {
      out.push(line);
      continue;
    }
    const name = familyName(m[2]);
    if (m[1] === 'HELP') {
      // The classic format never escapes a double quote, so every one here is literal.
      out.push(`# HELP ${name} ${(m[3] ?? '').replace(/"/g, '\\"')}`);
      continue;
    }
    out.push(`# TYPE ${name} ${m[3] === 'untyped' ? 'unknown' : m[3]}`);
    const unit = unitOf(name);
    if (unit) out.push(`# UNIT ${name} ${unit}`);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}
