import { countLines, type EncodedLines } from '../../src/metrics/encoded-lines.js';

/**
 * A group's families as text encoded into one buffer of their own, a view into it per family: the
 * shape a decoding thread hands back (`renderGroupEncoded` of src/metrics/render-bytes.ts), made
 * from text the test writes.
 */
export function encodeGroup(group: Iterable<readonly [string, string]>): Array<[string, EncodedLines]> {
  const entries = [...group];
  const lengths = entries.map(([, text]) => Buffer.byteLength(text));
  const total = lengths.reduce((a, b) => a + b, 0);
  const all = Buffer.allocUnsafeSlow(total);
  let at = 0;
  return entries.map(([name, text], i) => {
    const length = lengths[i] ?? 0;
    all.write(text, at, length, 'utf8');
    const bytes = all.subarray(at, at + length);
    at += length;
    return [name, { bytes, lines: countLines(text) }];
  });
}
