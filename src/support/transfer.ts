/** What can be moved between threads rather than copied (postMessage's transfer list). */

/**
 * Whether the bytes fill their whole ArrayBuffer, so that it can be moved to another thread as it
 * is (a slice of Node's shared small-buffer pool, or of a larger buffer, would take its neighbours
 * along).
 */
export function ownsItsBuffer(b: Uint8Array): boolean {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer;
}

/** Whether the bytes are in memory shared between threads: posted, they are shared, never copied or moved. */
export function isShared(b: Uint8Array): boolean {
  return b.buffer instanceof SharedArrayBuffer;
}

/** Whether a buffer can be moved to a worker as it is (see `ownsItsBuffer`). */
export function transferable(b: Uint8Array): ArrayBuffer[] {
  return ownsItsBuffer(b) ? [b.buffer as ArrayBuffer] : [];
}

/** The bytes in a buffer of their own: as they are if they fill theirs, else a copy. */
export function ownCopy(b: Uint8Array): Uint8Array {
  return ownsItsBuffer(b) ? b : new Uint8Array(b);
}

/**
 * The ArrayBuffers that views in a task's result fill together, whole (views into one buffer of
 * their own, as `encodeGroup` makes): those can be moved. A view into a shared buffer is copied.
 */
export function ownedBuffers(value: unknown): ArrayBuffer[] {
  const views = new Map<ArrayBuffer, number>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > 4 || v === null || typeof v !== 'object') return;
    if (v instanceof Uint8Array) {
      if (v.buffer instanceof ArrayBuffer) views.set(v.buffer, (views.get(v.buffer) ?? 0) + v.byteLength);
      return;
    }
    for (const x of Array.isArray(v) ? v : Object.values(v)) walk(x, depth + 1);
  };
  walk(value, 0);
  return [...views].filter(([buffer, covered]) => covered === buffer.byteLength).map(([buffer]) => buffer);
}

type Transferring = ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };

/**
 * Gives back now the memory of buffers nothing will read again, each of which its bytes alone fill
 * (`ownsItsBuffer`; others are left as they are): detached, the bytes are no longer this thread's.
 * An ArrayBuffer that outlived a scavenge is otherwise freed only by the thread's next full
 * collection: a million series' answers, read in 64 KiB chunks that live across the scavenges of
 * hundreds of requests in flight, left up to 87 MiB of them in the collection thread's old generation
 * (docs/performance.md, "Answers' chunks given back when read"). Where `ArrayBuffer.prototype.transfer`
 * exists (Node 24) the memory is freed at once; on Node 20 it moves to a new buffer that nothing
 * holds, which the next scavenge frees.
 */
export function giveBack(views: readonly Uint8Array[]): void {
  const owned = views.filter(ownsItsBuffer).map((v) => v.buffer as Transferring);
  if (!owned.length) return;
  if (typeof owned[0]!.transfer === 'function') for (const b of owned) b.transfer!(0);
  else structuredClone(owned, { transfer: owned });
}
