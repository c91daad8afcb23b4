import type http from 'node:http';

/**
 * Bytes handed to the socket at a time. Each slice's completion is the progress the write timeout
 * watches (`connection-cap.ts`): a body written whole completes only when the client has taken all
 * of it, so a slow reader of a large /metrics would look stuck however steadily it read.
 */
export const SLICE_BYTES = 256 * 1024;

/** Pieces regrouped into runs of at most `max` bytes: small pieces share one, large ones are cut (views, not copies). */
export function slices(pieces: readonly Buffer[], max = SLICE_BYTES): Buffer[][] {
  const out: Buffer[][] = [];
  let run: Buffer[] = [];
  let size = 0;
  for (const piece of pieces) {
    for (let at = 0; at < piece.length;) {
      const part = piece.subarray(at, at + max - size);
      run.push(part);
      size += part.length;
      at += part.length;
      if (size === max) {
        out.push(run);
        run = [];
        size = 0;
      }
    }
  }
  if (run.length > 0) out.push(run);
  return out;
}

/**
 * Writes the body a slice at a time, each slice's pieces in one `writev`, the next once the socket
 * has taken the last; ends the answer after the last. Stops if the client goes away.
 */
export function writeInSlices(res: http.ServerResponse, pieces: readonly Buffer[]): void {
  const runs = slices(pieces);
  let next = 0;
  const more = (): void => {
    while (next < runs.length && !res.destroyed) {
      res.cork();
      for (const b of runs[next++]!) res.write(b);
      res.uncork();
      if (res.writableNeedDrain) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end();
  };
  more();
}
