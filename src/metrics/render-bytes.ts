import type { EncodedLines } from './encoded-lines.js';
import type { Family, Labels } from './family.js';
import { LineBlocks, writeSamples } from './render.js';

/** The first size of a group's buffer; it doubles as lines come. */
const FIRST_BYTES = 64 * 1024;

/**
 * Bytes written one block of lines at a time into a buffer outside the JavaScript heap, which
 * doubles when full, so a block's text is garbage as soon as it is written.
 */
class ByteLines {
  private buf = Buffer.allocUnsafeSlow(FIRST_BYTES);
  /** Bytes written so far. */
  at = 0;

  write(block: string): void {
    const length = Buffer.byteLength(block);
    if (this.at + length > this.buf.length) {
      const next = Buffer.allocUnsafeSlow(Math.max(this.at + length, this.buf.length * 2));
      this.buf.copy(next, 0, 0, this.at);
      this.buf = next;
    }
    this.buf.write(block, this.at, length, 'utf8');
    this.at += length;
  }

  /** What was written, in a buffer of its own of exactly that size (one that a worker thread can move). */
  take(): Buffer {
    const all = Buffer.allocUnsafeSlow(this.at);
    this.buf.copy(all, 0, 0, this.at);
    return all;
  }
}

/**
 * Renders a list of families (each name once) over one input straight into one buffer, a view into
 * it per family with its lines' count: what `renderGroup` renders, encoded, without keeping the
 * text. Rendered on a decoding thread, a gossip pool's lines (about 9 MB for 20,000 members) were
 * alive until all its families were rendered, copied by each scavenge meanwhile and promoted to be
 * freed by a full collection. Here each block of lines is encoded as it fills and dies young. One
 * buffer for the group lets a worker thread hand it back by moving it, not copying it; a large
 * group that a memo keeps is then moved into shared memory (`moveIntoShared`), so the collection
 * thread's memo and the main thread's body hold the same bytes, not a copy each (at a million
 * series, ~90 MiB of gossip pools).
 */
export function renderGroupEncoded<I>(families: readonly Family<I>[], input: I, context: Labels): Array<[string, EncodedLines]> {
  const bytes = new ByteLines();
  const spans: Array<{ name: string; start: number; end: number; lines: number }> = [];
  for (const f of families) {
    if (spans.some((s) => s.name === f.name)) throw new Error(`metric ${f.name}: rendered twice in one group`);
    const start = bytes.at;
    const lines = new LineBlocks((block) => bytes.write(block));
    writeSamples(f, f.samples(input), context, lines);
    lines.flush();
    if (bytes.at > start) spans.push({ name: f.name, start, end: bytes.at, lines: lines.count });
  }
  const all = bytes.take();
  return spans.map((s) => [s.name, { bytes: all.subarray(s.start, s.end), lines: s.lines }]);
}
