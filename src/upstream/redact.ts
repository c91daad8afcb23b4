/**
 * vigil's own secrets, kept out of what an upstream sends back. A hostile or buggy upstream can
 * echo the token it was sent (in an error body, a member name, a team name); whatever comes from
 * an answer ends up in log lines, /api/v1/targets, the status page and labels, so the secrets a
 * request carried are replaced in the answer before anything reads it.
 */

export const REDACTED = '[REDACTED]';

/** Header and body fields whose values are secrets. */
const SECRET_NAME = /token|authorization|secret|password|api[-_]?key/i;

/**
 * Shorter values are not worth hunting: replacing them would mangle ordinary text, and where
 * `[REDACTED]` stands in text an observer knows would point at the secret itself.
 */
export const MIN_SECRET_LENGTH = 6;

/** The values worth hunting, once each, longest first (so a secret's longer forms are replaced whole). */
export function huntable(values: Iterable<string>): string[] {
  return [...new Set(values)].filter((v) => v.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/** The secrets a request carries: secret-named header values (a bearer token without its scheme) and body fields. */
export function requestSecrets(headers: Record<string, string> | undefined, body: unknown): string[] {
  const found: string[] = [];
  const add = (v: string) => void found.push(v);
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!SECRET_NAME.test(name)) continue;
    add(value);
    const scheme = /^(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value);
    if (scheme) add(scheme[1] as string);
  }
  const walk = (v: unknown, depth: number) => {
    if (depth > 8 || v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'string' && SECRET_NAME.test(k)) add(x);
      else walk(x, depth + 1);
    }
  };
  walk(body, 0);
  return huntable(found);
}

/** The forms a secret can take in JSON text: raw, JSON-escaped, with `/` escaped. */
function textForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [...new Set([secret, json, json.replace(/\//g, '\\/')])];
}

/** Replaces every occurrence of the secrets in text. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) for (const form of textForms(s)) if (out.includes(form)) out = out.split(form).join(REDACTED);
  return out;
}

/**
 * Replaces the secrets in every string (keys too) of a decoded value. Needed only when the text had
 * escapes (`\u0074oken`) that hide a secret from `redactText`.
 */
export function redactValue(value: unknown, secrets: readonly string[]): unknown {
  const fix = (s: string) => (secrets.some((x) => s.includes(x)) ? redactText(s, secrets) : s);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return fix(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [fix(k), walk(x)]));
    return v;
  };
  return walk(value);
}

/** Whether decoded text may hide a secret behind escapes that `redactText` cannot see. */
export const hasEscapes = (text: string) => text.includes('\\u') || text.includes('\\/');

/**
 * Upstream text made printable before it becomes part of an error message (shown in logs, on the
 * status page and in /api/v1/targets): control characters, C1 controls and line separators are
 * written as visible `\uXXXX`, so nothing downstream can be tricked by a CR or an ANSI escape.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it finds, to escape them
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
