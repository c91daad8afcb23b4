import type { z } from 'zod';
import { UpstreamError } from './errors.js';
import { schemaMessage } from './schema-helpers.js';

/** Validates a decoded body against what vigil uses of it; a mismatch is a `schema` failure. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, endpoint: string): z.output<S> {
  const res = schema.safeParse(body);
  if (!res.success) throw new UpstreamError('schema', schemaMessage(endpoint, res.error));
  return res.data;
}
