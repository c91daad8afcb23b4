/**
 * Exposition lines already encoded to bytes, with how many lines they are. A large group is encoded
 * where it is rendered (on a worker thread, or step by step between turns of the event loop), so
 * committing it to the store neither encodes nor counts megabytes in one piece.
 */
export interface EncodedLines {
  readonly bytes: Uint8Array;
  readonly lines: number;
}

/** One family's lines in a group: as text (small groups), or already encoded. */
export type GroupLines = string | EncodedLines;

/** The bytes as a Buffer over the same memory (no copy). */
export function asBuffer(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

export function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

export function encodeLines(lines: GroupLines): EncodedLines {
  return typeof lines === 'string' ? { bytes: Buffer.from(lines), lines: countLines(lines) } : lines;
}

/** Lines one after the other: text stays text; once any part is encoded, the result is bytes. */
export function joinLines(parts: readonly GroupLines[]): GroupLines {
  if (parts.every((p): p is string => typeof p === 'string')) return parts.join('');
  const encoded = parts.map(encodeLines);
  return {
    bytes: Buffer.concat(encoded.map((e) => asBuffer(e.bytes))),
    lines: encoded.reduce((n, e) => n + e.lines, 0),
  };
}

/** The lines as text (tools and tests; the store keeps bytes). */
export function linesText(lines: GroupLines): string {
  return typeof lines === 'string' ? lines : asBuffer(lines.bytes).toString();
}
