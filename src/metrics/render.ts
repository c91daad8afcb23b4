import { joinLines, type GroupLines } from './encoded-lines.js';
import type { AnyFamily, Family, HistogramSample, Labels, Sample } from './family.js';
import { foldLabelValue } from '../support/label-value.js';

/** Text exposition format 0.0.4 (what Prometheus and promtool read). */
export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export function escapeLabelValue(v: string): string {
  return /[\\"\n]/.test(v) ? v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : v;
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

export function header(f: AnyFamily): string {
  return `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
}

/** `a="1",b="2"` in the family's label order; a label neither given nor in context is an error. */
function labelPairs(f: AnyFamily, context: Labels, own: Labels | undefined): string {
  const parts: string[] = [];
  for (const name of f.labels) {
    const v = own?.[name] ?? context[name];
    if (v === undefined) throw new Error(`metric ${f.name}: label ${name} has no value`);
    parts.push(`${name}="${escapeLabelValue(foldLabelValue(v))}"`);
  }
  return parts.join(',');
}

/** `{a="1",b="2"}`, or nothing for a family without labels. */
function labelText(f: AnyFamily, context: Labels, own: Labels | undefined): string {
  const pairs = labelPairs(f, context, own);
  return pairs ? `{${pairs}}` : '';
}

/**
 * Lines in blocks of this many, each joined into one string as it fills. A line kept until all are
 * joined outlives the young generation's scavenges, each of which copies it again: a gossip pool
 * renders 80,000 lines, and keeping them all to the end made rendering it half garbage collection.
 * A block dies young once joined. Rendering a pool of 20,000 members took about half as long by
 * blocks of 512 as all at once (256 the same, 2,048 slower); `bench/decode-ab.ts` times it.
 */
const LINES_PER_BLOCK = 512;

/** Where rendered lines go, one at a time; each pushed string is one whole line. */
export interface LineSink {
  push(line: string): void;
}

/**
 * Lines in blocks of `LINES_PER_BLOCK`, each block joined into one string as it fills and handed to
 * `done`, so no line outlives its block.
 */
export class LineBlocks implements LineSink {
  private lines: string[] = [];
  /** Lines pushed so far. */
  count = 0;

  constructor(private readonly done: (block: string) => void) {}

  push(line: string): void {
    this.count++;
    this.lines.push(line);
    if (this.lines.length < LINES_PER_BLOCK) return;
    this.flush();
  }

  /** Hands on the lines of the block not yet full. */
  flush(): void {
    if (this.lines.length) this.done(this.lines.join(''));
    this.lines = [];
  }
}

/**
 * Lines as text: joined block by block, then the blocks once. Never appended one by one: a long
 * chain of appends makes a string that is slow to build and to encode.
 */
function linesAsText(write: (lines: LineSink) => void): string {
  const blocks: string[] = [];
  const lines = new LineBlocks((b) => blocks.push(b));
  write(lines);
  lines.flush();
  return blocks.length === 1 ? (blocks[0] ?? '') : blocks.join('');
}

/** Writes one family's sample lines (no HELP/TYPE) for some of its samples to `lines`. */
export function writeSamples(f: AnyFamily, samples: Iterable<Sample> | Iterable<HistogramSample>, context: Labels, lines: LineSink): void {
  if (f.type === 'histogram') histogramLines(f as AnyFamily & { bounds: readonly number[] }, context, samples as Iterable<HistogramSample>, lines);
  else scalarLines(f as AnyFamily, context, samples as Iterable<Sample>, lines);
}

function scalarLines(f: AnyFamily, context: Labels, samples: Iterable<Sample>, lines: LineSink): void {
  for (const s of samples) lines.push(`${f.name}${labelText(f, context, s.labels)} ${formatValue(s.value)}\n`);
}

/**
 * A histogram's lines: a sample's labels are written once for its buckets, sum and count, not once
 * per line (vigil's request latencies are rendered at every collection, 15 lines a sample).
 */
function histogramLines(f: AnyFamily & { bounds: readonly number[] }, context: Labels, samples: Iterable<HistogramSample>, lines: LineSink): void {
  const les = [...f.bounds.map(formatValue), '+Inf'].map((b) => `le="${b}"}`);
  for (const s of samples) {
    const pairs = labelPairs(f, context, s.labels);
    const bucket = `${f.name}_bucket{${pairs}${pairs ? ',' : ''}`;
    les.forEach((le, i) => lines.push(`${bucket}${le} ${i < f.bounds.length ? (s.buckets[i] ?? 0) : s.count}\n`));
    const own = pairs ? `{${pairs}}` : '';
    lines.push(`${f.name}_sum${own} ${formatValue(s.sum)}\n`);
    lines.push(`${f.name}_count${own} ${s.count}\n`);
  }
}

/** Sample lines (no HELP/TYPE) of one family for one input; '' when the family has nothing to say. */
export function renderFamily<I>(f: Family<I>, input: I, context: Labels): string {
  return renderSamples(f, f.samples(input), context);
}

/** Sample lines of some of a family's samples (a slice of them, when rendering in steps). */
export function renderSamples(f: AnyFamily, samples: Iterable<Sample> | Iterable<HistogramSample>, context: Labels): string {
  return linesAsText((lines) => writeSamples(f, samples, context, lines));
}

/** The rendered lines of one group of samples, keyed by family name (as text, or already encoded). */
export type RenderedGroup = ReadonlyMap<string, GroupLines>;

/** Renders a list of families over one input into a group, skipping families with no samples. */
export function renderGroup<I>(families: readonly Family<I>[], input: I, context: Labels): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of families) {
    const text = renderFamily(f, input, context);
    if (text) out.set(f.name, (out.get(f.name) ?? '') + text);
  }
  return out;
}

/** Joins several rendered groups into one (used when one collection part yields more than one). */
export function mergeGroups(...groups: RenderedGroup[]): Map<string, GroupLines> {
  const parts = new Map<string, GroupLines[]>();
  for (const g of groups) for (const [k, v] of g) parts.set(k, [...(parts.get(k) ?? []), v]);
  return new Map([...parts].map(([k, v]) => [k, v.length === 1 ? v[0]! : joinLines(v)]));
}

/** Where rendered groups go: the snapshot store, or the collection thread's messages to the main thread. */
export interface GroupWriter {
  replace(key: string, group: RenderedGroup): void;
  /**
   * Replaces a group with what `render` gives when the body is next laid out or read, not now: a
   * group derived across targets (rendered again after each target's poll) is then rendered once
   * per batch of polls, from the state as it is by then. A later call replaces an earlier one not yet rendered.
   */
  replaceLater(key: string, render: () => RenderedGroup): void;
  /**
   * Replaces every group under `prefix` at once: keys in `groups` are replaced, keys in `kept` stay
   * as they are (a part whose answers did not change), other keys under the prefix are removed.
   */
  replaceAll(prefix: string, groups: ReadonlyMap<string, RenderedGroup>, kept?: ReadonlySet<string>): void;
  removePrefix(prefix: string): void;
}
