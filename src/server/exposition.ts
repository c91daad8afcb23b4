/** One sample of the Prometheus text format, as the snapshot store rendered it. */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

const UNESCAPE: Record<string, string> = { '\\': '\\', '"': '"', n: '\n' };

/** `a="x",b="y\"z"` → labels; the text is vigil's own rendering, so it is well formed. */
function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => UNESCAPE[c] ?? c);
  }
  return labels;
}

/**
 * The samples of the wanted families in exposition text. Lines of other families are skipped
 * without parsing their labels: the estate needs a few dozen families of a snapshot that may hold
 * 100k series.
 */
export function parseExposition(text: string, wanted: ReadonlySet<string>): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const brace = line.indexOf('{');
    const space = line.indexOf(' ');
    const nameEnd = brace !== -1 && brace < space ? brace : space;
    const name = line.slice(0, nameEnd);
    if (!wanted.has(name)) continue;
    const close = brace === nameEnd ? line.lastIndexOf('}') : -1;
    const labels = close === -1 ? {} : parseLabels(line.slice(brace + 1, close));
    const value = Number(
      line
        .slice(close === -1 ? space : close + 1)
        .trim()
        .split(' ')[0],
    );
    let list = out.get(name);
    if (!list) out.set(name, (list = []));
    list.push({ labels, value });
  }
  return out;
}
