/** The parts of a V8 `.cpuprofile` (as `node --cpu-prof` writes it) that the stretches need. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Stretch {
  /** Length of the stall. */
  ms: number;
  /** Functions (by self time) that took most of it. */
  top: Array<{ name: string; ms: number }>;
}

/**
 * What the main thread did during each stall (a window, in the profile's microseconds, in which the
 * event loop ran no timer): its length and the functions, by self time, that took most of it.
 * The `count` longest, longest first.
 */
export function stallContents(p: CpuProfile, stalls: ReadonlyArray<readonly [number, number]>, count: number): Stretch[] {
  const names = framesWithOwner(p);
  const times: number[] = [];
  let t = p.startTime;
  for (const d of p.timeDeltas) times.push((t += d));
  return [...stalls]
    .sort((a, b) => b[1] - b[0] - (a[1] - a[0]))
    .slice(0, count)
    .map(([from, to]) => {
      const self = new Map<string, number>();
      for (let i = 1; i < times.length; i++) {
        const at = times[i] ?? 0;
        if (at <= from || at > to) continue;
        // A sample's delta is the time since the previous sample: it belongs to this sample's frame.
        const name = names.get(p.samples[i] ?? -1) ?? '?';
        self.set(name, (self.get(name) ?? 0) + (at - (times[i - 1] ?? at)));
      }
      const top = [...self]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([name, us]) => ({ name, ms: us / 1000 }));
      return { ms: (to - from) / 1000, top };
    });
}

/**
 * Each node's name: its function, and the innermost of vigil's own functions (`dist/`) it ran
 * under, so that a copy or a parse is named with the step that asked for it.
 */
function framesWithOwner(p: CpuProfile): Map<number, string> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const out = new Map<number, string>();
  const walk = (id: number, owner: string | undefined) => {
    const n = byId.get(id);
    if (!n) return;
    const own = n.callFrame.url.includes('/dist/') ? frameName(n.callFrame) : owner;
    const name = frameName(n.callFrame);
    out.set(id, own && own !== name ? `${name} < ${own}` : name);
    for (const c of n.children ?? []) walk(c, own);
  };
  if (p.nodes[0]) walk(p.nodes[0].id, undefined);
  return out;
}

function frameName(f: CpuProfile['nodes'][number]['callFrame']): string {
  if (!f.url) return f.functionName || '(anonymous)';
  const file = f.url.slice(f.url.lastIndexOf('/') + 1);
  return `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
}
