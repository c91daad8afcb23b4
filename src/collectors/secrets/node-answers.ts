import { z } from 'zod';
import type { UpstreamError } from '../../upstream/errors.js';

/**
 * What the HA and raft answers of the secrets service share: they come at the top level (as the API
 * documents them) or inside the `data` envelope of the service's other answers, and the oldest
 * autopilot answers (1.7, 1.8) spell their keys in CamelCase (`FailureTolerance`). Both are read alike.
 */
export const snakeCase = (key: string): string => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** An object with its own keys in snake_case; nested values as they are (a map keyed by server id keeps its keys). */
export function snakeKeys(v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [snakeCase(k), x]));
}

/** The body itself, or its `data` when the answer came in the envelope without the key that tells (`key`). */
export function unwrapData(body: unknown, key: string): unknown {
  const top = snakeKeys(body) as Record<string, unknown> | undefined;
  if (top && typeof top === 'object' && !(key in top) && top.data && typeof top.data === 'object') return snakeKeys(top.data);
  return top;
}

/** Reads an answer through `unwrapData` before `schema`. */
export const enveloped = <S extends z.ZodType>(key: string, schema: S) => z.preprocess((b) => unwrapData(b, key), schema);

/** Refused (403), unknown (404, 405), or disabled on a DR secondary (400 "path disabled in replication DR secondary mode"). */
export const refusedOrMissing = (err: UpstreamError): boolean =>
  err.status === 403 || err.status === 404 || err.status === 405 || (err.status === 400 && /path disabled/i.test(err.message));
