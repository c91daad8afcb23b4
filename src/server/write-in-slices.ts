import type http from 'node:http';

/**
 * Bytes handed to the socket at a time. Each slice's completion is the progress the write timeout
 * watches (`connection-cap.ts`): a body written whole completes only when the client has taken all
 * of it, so a slow reader of a large /metrics would look stuck however steadily it read. A reader
 * taking 1 MiB per write timeout (35 kB/s at the default 30 s) is seen to progress. Slices of 1 MiB
 * cost 0.84 of the CPU of slices of 256 KiB per answer, fewer than one writev of the whole body
 * (`bench/write-slices.ts`, docs/performance.md).
 */
export const SLICE_BYTES = 1024 * 1024;

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
export function writeInSlices(res: http.ServerResponse, pieces: readonly Buffer[], sliceBytes = SLICE_BYTES): void {
  const runs = slices(pieces, sliceBytes);
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
