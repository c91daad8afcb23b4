import { Chunk } from './snapshot.js';

/**
 * A piece of the body smaller than this is joined with its neighbours into one run of about this
 * size; a larger one (a gossip pool's member series, an organization's teams) stands alone. Each
 * piece is compressed once and reused by every snapshot that holds it unchanged.
 */
export const RUN_BYTES = 64 * 1024;
/** A run kept from the last layout may grow to this many bytes before it is laid out anew. */
const RUN_MAX_BYTES = 4 * RUN_BYTES;
/** ... or shrink to this many (unless it is the last). */
const RUN_MIN_BYTES = RUN_BYTES / 4;

/** Bytes to lay out, under a key that names them across layouts (a group's key, a family's name). */
export interface Part {
  readonly key: string;
  readonly chunk: Chunk;
}

/** A run of small parts joined into one piece. */
export interface Run {
  /** The keys of its parts, in order. */
  readonly keys: readonly string[];
  /** The ids of the chunks it joined: the same ids, the same bytes. */
  readonly ids: string;
  readonly chunk: Chunk;
}

/** Parts laid out in order as pieces, each under the key of its first part, and the runs among them by that key. */
export interface Runs {
  readonly pieces: readonly Part[];
  readonly runs: ReadonlyMap<string, Run>;
  readonly series: number;
}

/**
 * Lays out parts in order, large ones alone and small neighbours joined into runs.
 *
 * A run keeps the parts it had in the last layout (`previous`) while they are still there, next to
 * each other, and its size stays within bounds: a part that changed then makes only its own run
 * new, not every run after it (were runs cut afresh at every 64 KiB, a group a byte longer would
 * move every later cut). A run of the same chunks as before is reused as it is, with the gzip
 * member made of it: only runs around what changed are copied again.
 */
export function joinRuns(parts: readonly Part[], previous: ReadonlyMap<string, Run>): Runs {
  const pieces: Part[] = [];
  const runs = new Map<string, Run>();
  let series = 0;
  const small = (i: number) => (parts[i]?.chunk.length ?? Infinity) < RUN_BYTES;
  const join = (from: number, to: number) => {
    const members = parts.slice(from, to);
    const keys = members.map((p) => p.key);
    const ids = members.map((p) => p.chunk.id).join(',');
    const before = previous.get(keys[0]!);
    const chunk =
      members.length === 1
        ? members[0]!.chunk
        : before?.ids === ids
          ? before.chunk
          : new Chunk(
              Buffer.concat(members.map((p) => p.chunk.bytes)),
              members.reduce((n, p) => n + p.chunk.series, 0),
            );
    runs.set(keys[0]!, { keys, ids, chunk });
    pieces.push({ key: keys[0]!, chunk });
  };
  /** Where the last layout's run starting at `i` ends now, if it can be kept. */
  const kept = (i: number): number | undefined => {
    const run = previous.get(parts[i]!.key);
    if (!run) return undefined;
    let bytes = 0;
    for (let k = 0; k < run.keys.length; k++) {
      const p = parts[i + k];
      if (!p || p.key !== run.keys[k] || !small(i + k)) return undefined;
      bytes += p.chunk.length;
    }
    const end = i + run.keys.length;
    return bytes <= RUN_MAX_BYTES && (bytes >= RUN_MIN_BYTES || !small(end)) ? end : undefined;
  };
  let i = 0;
  while (i < parts.length) {
    if (!small(i)) {
      pieces.push(parts[i]!);
      i++;
      continue;
    }
    const end = kept(i);
    if (end !== undefined) {
      join(i, end);
      i = end;
      continue;
    }
    // A new run: up to its size, a large part, or where a kept run starts (so the layout finds
    // its old cuts again after a part came or went).
    let to = i;
    let bytes = 0;
    do {
      bytes += parts[to]!.chunk.length;
      to++;
    } while (bytes < RUN_BYTES && small(to) && !previous.has(parts[to]!.key));
    join(i, to);
    i = to;
  }
  for (const p of pieces) series += p.chunk.series;
  return { pieces, runs, series };
}
