import { asBuffer } from '../metrics/encoded-lines.js';
import { RUN_BYTES } from '../metrics/runs.js';
import type { Deflated } from '../metrics/gzip-stream.js';
import { Chunk, FORMATS, Snapshot, deflateOnce, type Compress, type ExpositionFormat } from '../metrics/snapshot.js';
import { ownCopy, transferable } from '../support/transfer.js';

/** A piece of the body: one the other side holds already (its id), or a new one with its bytes. */
export type PieceNote = number | { id: number; series: number; bytes: Uint8Array; deflated?: { raw: Uint8Array; crc: number; length: number } };

/** The collection's body in both formats, as the collection thread laid it out. */
export interface BodyNote {
  op: 'body';
  at: number;
  text: PieceNote[];
  openmetrics: PieceNote[];
}

/** Where the collection's body is laid out (a snapshot store). */
export interface BodySource {
  snapshot(format: ExpositionFormat): Snapshot;
}

/**
 * The collection thread's side: sends the body whenever it changed, as the order of its pieces and
 * the bytes of only those pieces the main thread does not hold yet. A large piece's bytes are moved,
 * not copied (this side keeps no more than its length and digest), or, in shared memory, shared
 * (`Chunk.moveOut`); a small one is copied, since a later run may join it again. With `compress`,
 * each new piece's compression is made here too and sent along. The main thread then does no more
 * with a collection's results than take the new pieces in: encoding, comparing, laying out and
 * compressing all happen here.
 */
export class BodyPublisher {
  /** Pieces the other side holds: those of the last body sent. */
  private held = new Set<number>();
  private last: Snapshot[] = [];

  constructor(
    private readonly source: BodySource,
    private readonly send: (note: BodyNote, transfer: ArrayBuffer[]) => void,
    private readonly compress?: (bytes: Buffer) => Deflated,
  ) {}

  /** Sends the body if it changed since it was last sent. */
  publish(): void {
    const snaps = FORMATS.map((f) => this.source.snapshot(f));
    if (snaps.every((s, i) => s === this.last[i])) return;
    this.last = snaps;
    const held = new Set<number>();
    const transfer: ArrayBuffer[] = [];
    const note = (p: Chunk): PieceNote => {
      const known = held.has(p.id) || this.held.has(p.id);
      held.add(p.id);
      if (known) return p.id;
      const d = this.compress?.(p.bytes);
      const bytes = p.length >= RUN_BYTES ? p.moveOut() : new Uint8Array(p.bytes);
      // shared memory (a large group's lines) is shared by posting it, never moved
      transfer.push(...transferable(bytes));
      if (!d) return { id: p.id, series: p.series, bytes };
      const raw = ownCopy(d.raw);
      transfer.push(raw.buffer as ArrayBuffer);
      return { id: p.id, series: p.series, bytes, deflated: { raw, crc: d.crc, length: d.length } };
    };
    const [text, openmetrics] = snaps.map((s) => s.pieces.map(note));
    this.held = held;
    this.send({ op: 'body', at: Math.max(...snaps.map((s) => s.renderedAt)), text: text ?? [], openmetrics: openmetrics ?? [] }, transfer);
  }
}

/**
 * The main thread's side: the body in both formats, from the pieces sent. A piece keeps its chunk
 * (and the compression made of it) for as long as a body holds it.
 */
export class BodyMirror implements BodySource {
  private held = new Map<number, Chunk>();
  private current: Record<ExpositionFormat, Snapshot>;

  constructor(private readonly compress: Compress = deflateOnce) {
    const empty = new Snapshot([], Date.now(), 0, compress);
    this.current = { text: empty, openmetrics: empty };
  }

  apply(n: BodyNote): void {
    const next = new Map<number, Chunk>();
    const piece = (p: PieceNote): Chunk => {
      if (typeof p !== 'number') {
        const c = new Chunk(asBuffer(p.bytes), p.series);
        if (p.deflated) c.compressedAs({ ...p.deflated, raw: asBuffer(p.deflated.raw) });
        next.set(p.id, c);
        return c;
      }
      const c = next.get(p) ?? this.held.get(p);
      if (!c) throw new Error(`body piece ${p} was referred to but never sent`);
      next.set(p, c);
      return c;
    };
    const laid = (notes: PieceNote[]) => {
      const pieces = notes.map(piece);
      return new Snapshot(
        pieces,
        n.at,
        pieces.reduce((s, c) => s + c.series, 0),
        this.compress,
      );
    };
    this.current = { text: laid(n.text), openmetrics: laid(n.openmetrics) };
    this.held = next;
  }

  snapshot(format: ExpositionFormat): Snapshot {
    return this.current[format];
  }
}
