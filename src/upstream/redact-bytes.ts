import { hasEscapes, redactText, redactValue } from './redact.js';
import { Received } from './received.js';

/**
 * `redactText`/`redactValue` for a body kept as bytes (decoded later, off the collection thread). The
 * common case, no secret and no escape in it, is a byte search and no copy; otherwise the body is
 * redacted as text (and, when escapes could hide a secret, as a decoded value) and encoded again.
 */
export function redactBytes(bytes: Buffer, secrets: readonly string[]): Buffer {
  if (!secrets.length) return bytes;
  // Any backslash: an escaped form of a secret, or an escape hiding one.
  const escapes = bytes.includes('\\');
  if (!escapes && !secrets.some((s) => bytes.includes(s))) return bytes;
  const text = redactText(bytes.toString('utf8'), secrets);
  if (!hasEscapes(text)) return Buffer.from(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return Buffer.from(text); // not JSON: the decoder will say so
  }
  return Buffer.from(JSON.stringify(redactValue(value, secrets)));
}

/**
 * `redactBytes` for a body as it arrived: the common case, no secret and no escape in it, is a
 * search of its chunks, with neither a join nor a copy, and the body (and its digest) as they are.
 */
export function redactReceived(body: Received, secrets: readonly string[]): Received {
  if (!secrets.length) return body;
  if (!body.includes('\\') && !secrets.some((s) => body.includes(s))) return body;
  const bytes = body.bytes();
  const redacted = redactBytes(bytes, secrets);
  return redacted === bytes ? body : Received.of(redacted);
}
