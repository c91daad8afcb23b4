/**
 * Characters of sender- or upstream-supplied text kept for a log line, a page or an error: an
 * upstream's megabytes of `errors[]`, or a sender's megabyte receiver name, must not become
 * megabytes there.
 */
export const MAX_TEXT = 1024;

/** `s` cut to `max` characters, saying how much was left out. */
export function capText(s: string, max = MAX_TEXT): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more characters)`;
}
