import { Chunk } from './snapshot.js';

/**
 * A piece of the body smaller than this is joined with its neighbours into one run of at least this
 * size; a larger one (a gossip pool's member series, an organization's teams) stands alone. Each
 * piece is one gzip member, compressed once and reused by every snapshot that holds it unchanged.
 */
export const RUN_BYTES = 64 * 1024;

/** Pieces laid out in order, and the runs among them by the ids of what each joins (for reuse). */
export interface Runs {
  readonly pieces: readonly Chunk[];
  readonly runs: ReadonlyMap<string, Chunk>;
  readonly series: number;
}

/**
 * Lays out chunks in order, large ones alone and small neighbours joined into runs. A run of the
 * same chunks as one in `previous` is reused as it is (with the gzip member made of it): only runs
 * around what changed are copied again.
 */
export function joinRuns(chunks: Iterable<Chunk>, previous: ReadonlyMap<string, Chunk>): Runs {
  const pieces: Chunk[] = [];
  const runs = new Map<string, Chunk>();
  let run: Chunk[] = [];
  let runBytes = 0;
  let series = 0;
  const closeRun = () => {
    if (!run.length) return;
    const id = run.map((c) => c.id).join(',');
    const joined =
      run.length === 1 ? run[0]! : (previous.get(id) ?? new Chunk(Buffer.concat(run.map((c) => c.bytes)), run.reduce((n, c) => n + c.series, 0)));
    runs.set(id, joined);
    pieces.push(joined);
    run = [];
    runBytes = 0;
  };
  for (const c of chunks) {
    series += c.series;
    if (c.bytes.length >= RUN_BYTES) {
      closeRun();
      pieces.push(c);
      continue;
    }
    run.push(c);
    runBytes += c.bytes.length;
    if (runBytes >= RUN_BYTES) closeRun();
  }
  closeRun();
  return { pieces, runs, series };
}
