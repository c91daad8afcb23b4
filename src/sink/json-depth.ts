/**
 * How deep JSON text nests, counted without parsing it (no recursion, no allocation), stopping at
 * `max + 1`: a sender's 5,000-deep field must be refused before anything walks it recursively.
 */

interface ScanState {
  depth: number;
  inString: boolean;
  /** Where the scan goes on (a `\` at the end of a slice skips into the next one). */
  at: number;
}

/** Scans text[state.at, end); true as soon as the depth passes `max`. */
function scan(text: string, end: number, max: number, s: ScanState): boolean {
  let { depth, inString } = s;
  let i = s.at;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  Object.assign(s, { depth, inString, at: i });
  return false;
}

export function jsonDepthExceeds(text: string, max: number): boolean {
  return scan(text, text.length, max, { depth: 0, inString: false, at: 0 });
}

/** Characters scanned per turn of the event loop (a few milliseconds). */
const SLICE = 1 << 20;

/** jsonDepthExceeds, a slice per turn, so a 10 MiB body does not hold the event loop for its whole scan. */
export async function jsonDepthExceedsInTurns(text: string, max: number, nextTurn: () => Promise<void>): Promise<boolean> {
  const s: ScanState = { depth: 0, inString: false, at: 0 };
  while (s.at < text.length) {
    if (scan(text, Math.min(text.length, s.at + SLICE), max, s)) return true;
    if (s.at < text.length) await nextTurn();
  }
  return false;
}
