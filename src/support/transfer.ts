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

/** Where a view sits in a value: its holder (an object or array) and key, or none for the value itself. */
interface Place {
  readonly holder?: Record<PropertyKey, unknown>;
  readonly key?: PropertyKey;
  readonly view: Uint8Array;
}

/** A holder with more entries than this is a listing's items, not a group's lines: not looked through. */
const WIDEST_HOLDER = 64;

/**
 * The views in a value, down to a decoded result's depth (a group's lines: result, list, entry,
 * lines, bytes), through holders of a few entries: a listing's thousands of items are not walked.
 */
function viewsIn(value: unknown): Place[] {
  if (value instanceof Uint8Array) return [{ view: value }];
  const found: Place[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 3 || v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return;
    if (Array.isArray(v) && v.length > WIDEST_HOLDER) return;
    const entries = Array.isArray(v) ? [...v.entries()] : Object.entries(v);
    if (entries.length > WIDEST_HOLDER) return;
    const holder = v as Record<PropertyKey, unknown>;
    for (const [key, x] of entries) {
      if (x instanceof Uint8Array) found.push({ holder, key, view: x });
      else walk(x, depth + 1);
    }
  };
  walk(value, 0);
  return found;
}

/** The ArrayBuffers (not shared memory) that the views at `places` fill together, whole. */
function filledBuffers(places: readonly Place[]): ArrayBuffer[] {
  const views = new Map<ArrayBuffer, number>();
  for (const { view } of places) if (view.buffer instanceof ArrayBuffer) views.set(view.buffer, (views.get(view.buffer) ?? 0) + view.byteLength);
  return [...views].filter(([buffer, covered]) => covered === buffer.byteLength).map(([buffer]) => buffer);
}

/**
 * The ArrayBuffers that views in a task's result fill together, whole (views into one buffer of
 * their own, as `renderGroupEncoded` makes): those can be moved. A view into a shared buffer is copied.
 */
export function ownedBuffers(value: unknown): ArrayBuffer[] {
  return filledBuffers(viewsIn(value));
}

/**
 * From this size a buffer a kept value fills is moved into memory the threads share
 * (`moveIntoShared`): a gossip pool's lines, which the target's memo keeps to hand out again and
 * the main thread serves.
 */
export const SHARED_FROM_BYTES = 64 * 1024;

/**
 * Moves, in place, each buffer of at least `from` bytes that views in `value` fill whole into
 * memory the threads share: each view is replaced in its holder by one at the same place over a
 * `SharedArrayBuffer` with the same bytes (a Buffer stays a Buffer), and the buffer it was in is
 * given back. Returns the bytes moved.
 *
 * For a value kept to hand out again (the memo's) whose bytes another thread also serves: posted,
 * shared memory is shared, not copied, so both threads hold one copy. Only a value that is kept
 * is moved: a decoding's result starts in a buffer of its own, which V8 counts and can free at
 * once when the result is not kept (`giveBackOwned`); V8 counts no shared memory, which a thread
 * frees only at a full collection that nothing else prompts.
 */
export function moveIntoShared(value: unknown, from = SHARED_FROM_BYTES): number {
  const places = viewsIn(value);
  const moved = new Map<ArrayBuffer, SharedArrayBuffer>();
  for (const buffer of filledBuffers(places)) {
    if (buffer.byteLength < from) continue;
    const shared = new SharedArrayBuffer(buffer.byteLength);
    new Uint8Array(shared).set(new Uint8Array(buffer));
    moved.set(buffer, shared);
  }
  if (!moved.size) return 0;
  for (const { holder, key, view } of places) {
    const shared = moved.get(view.buffer as ArrayBuffer);
    if (!shared || !holder || key === undefined) continue;
    holder[key] = Buffer.isBuffer(view) ? Buffer.from(shared, view.byteOffset, view.byteLength) : new Uint8Array(shared, view.byteOffset, view.byteLength);
  }
  const bytes = [...moved.keys()].reduce((n, b) => n + b.byteLength, 0);
  detach([...moved.keys()]);
  return bytes;
}

/**
 * Gives back now the buffers that views in `value` fill whole: for a decoding's result that is not
 * kept (an answer that renders what the remembered one did), so its bytes are not left for the
 * thread's next full collection. Nothing may read the value afterwards.
 */
export function giveBackOwned(value: unknown): void {
  detach(ownedBuffers(value));
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
  detach(views.filter(ownsItsBuffer).map((v) => v.buffer as ArrayBuffer));
}

function detach(buffers: readonly ArrayBuffer[]): void {
  const owned = buffers as readonly Transferring[];
  if (!owned.length) return;
  if (typeof owned[0]!.transfer === 'function') for (const b of owned) b.transfer!(0);
  else structuredClone(owned, { transfer: owned as ArrayBuffer[] });
}
