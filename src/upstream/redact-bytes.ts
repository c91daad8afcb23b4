import { hasEscapes, redactText, redactValue } from './redact.js';
import { Received } from './received.js';
import { textOf } from './parse.js';

/** The secrets a body is searched for, as one string: a body found free of them is known by it (`Received.cleanOf`). */
export const secretsKey = (secrets: readonly string[]): string => secrets.join('\u0000');

/**
 * `redactText`/`redactValue` for a body kept as bytes (decoded later, off the collection thread),
 * as it arrived. The common case, no secret and no escape in it, is a search of its chunks (and of
 * the seams between them), with neither a join nor a copy: the body and its digest are handed back
 * as they are. Otherwise the body is redacted as text (and, when escapes could hide a secret, as a
 * decoded value) and encoded again.
 */
export function redactReceived(body: Received, secrets: readonly string[]): Received {
  // Any backslash: an escaped form of a secret, or an escape hiding one.
  if (!secrets.length || (!body.includes('\\') && !secrets.some((s) => body.includes(s)))) {
    body.cleanOf = secretsKey(secrets);
    return body;
  }
  const text = redactText(textOf(body.bytes()), secrets);
  if (!hasEscapes(text)) return Received.of(Buffer.from(text));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return Received.of(Buffer.from(text)); // not JSON: the decoder will say so
  }
  return Received.of(Buffer.from(JSON.stringify(redactValue(value, secrets))));
}
