import { CATALOG } from '../../src/catalog.js';
import { linesText } from '../../src/metrics/encoded-lines.js';
import { header, type RenderedGroup } from '../../src/metrics/render.js';

/**
 * Many collections' groups as one exposition in the catalog's order, as the store renders /metrics,
 * so that one `promtool check metrics` run checks them all: each family's HELP and TYPE once, then
 * the lines of every group, the i-th group's `target` label renamed `s<i>` so no two samples collide.
 */
export function mergedExposition(groups: readonly RenderedGroup[]): string {
  const lines = new Map<string, Set<string>>();
  groups.forEach((g, i) => {
    for (const [name, text] of g) {
      const set = lines.get(name) ?? new Set<string>();
      lines.set(name, set);
      for (const line of linesText(text).split('\n')) if (line) set.add(line.replace(/target="[^"]*"/, `target="s${i}"`));
    }
  });
  const unknown = [...lines.keys()].filter((n) => !CATALOG.some((f) => f.name === n));
  if (unknown.length) throw new Error(`families outside the catalog: ${unknown.join(', ')}`);
  return CATALOG.filter((f) => lines.has(f.name))
    .map((f) => header(f) + [...(lines.get(f.name) ?? [])].join('\n') + '\n')
    .join('');
}
