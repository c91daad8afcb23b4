import type { z } from 'zod';
import { UpstreamError } from './errors.js';
import { printable } from './redact.js';
import { schemaMessage } from './schema-helpers.js';

/** Validates a decoded body against what vigil uses of it; a mismatch is a `schema` failure. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, endpoint: string): z.output<S> {
  const res = schema.safeParse(body);
  // Field paths come from the answer (record keys): made printable like any upstream text.
  if (!res.success) throw new UpstreamError('schema', printable(schemaMessage(endpoint, res.error)));
  return res.data;
}

/** A body's bytes as UTF-8 text (whatever view of a buffer they arrive in: a worker gets a plain Uint8Array). */
export function textOf(body: Uint8Array): string {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}
