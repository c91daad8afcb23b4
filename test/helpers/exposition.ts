/**
 * Reads exposition text into `name{a="1",b="2"}` → value, with labels sorted, so tests can assert
 * on series regardless of label order. Independent of vigil's renderer on purpose.
 */
export function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    // A label value may hold any character but a line feed (escaped): a carriage return included.
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/s.exec(line);
    if (!m) throw new Error(`unparseable exposition line: ${line}`);
    const labels = [...(m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}="${v}"`).sort();
    const key = labels.length ? `${m[1]}{${labels.join(',')}}` : (m[1] as string);
    const raw = m[4] as string;
    out.set(key, raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw));
  }
  return out;
}

/** `series('x', {b: '2', a: '1'})` → `x{a="1",b="2"}`, the key format of parseExposition. */
export function series(name: string, labels: Record<string, string> = {}): string {
  const l = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  return l.length ? `${name}{${l.join(',')}}` : name;
}

/** Every series of one metric name (any labels). */
export function seriesOf(all: Map<string, number>, name: string): Map<string, number> {
  return new Map([...all].filter(([k]) => k === name || k.startsWith(`${name}{`)));
}
