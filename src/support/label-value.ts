/**
 * Characters of one label value vigil exports. Every label value that comes from an upstream (a
 * team's name, a node's address, a server's id) is folded to this length where it is rendered, so
 * that a megabyte name costs a few hundred bytes of every scrape, not a megabyte, and Prometheus'
 * `label_value_length_limit` (often 256 to 1,024) never drops the scrape. Real names, ids and
 * addresses are far shorter.
 */
export const MAX_LABEL_VALUE = 256;

/** 32-bit FNV-1a, in hex: tells folded values apart that share their first characters. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * `v` itself when it fits, else its first characters, an ellipsis and a digest of the whole value
 * (two long values with the same start stay two series): `MAX_LABEL_VALUE` characters at most.
 */
export function foldLabelValue(v: string): string {
  if (v.length <= MAX_LABEL_VALUE) return v;
  const digest = fnv1a(v);
  let end = MAX_LABEL_VALUE - digest.length - 2;
  // Never half a surrogate pair: it would not encode.
  if (/[\ud800-\udbff]/.test(v.charAt(end - 1))) end--;
  return `${v.slice(0, end)}…~${digest}`;
}
