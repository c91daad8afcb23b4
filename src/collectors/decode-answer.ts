import { decode } from '../upstream/decode.js';
import { parseBody, textOf } from '../upstream/parse.js';
import { schemaOf } from './endpoint.js';

/**
 * An answer of an endpoint without a decoding task of its own, from this size on, is decoded on a
 * decoding thread: an upstream's few kB are read where they arrive, but a broken or hostile one's
 * megabytes (a replication status listing thousands of secondaries, an HA status of 100,000 nodes)
 * must not hold up every other target's jobs while they are parsed. What crosses back is what the
 * schema keeps of it.
 */
export const LARGE_ANSWER_BYTES = 64 * 1024;

/** One answer as received, and the endpoint whose schema reads it. */
export interface AnswerInput {
  id: string;
  body: Uint8Array;
}

/** Reads an answer as the endpoint's schema does (`decode`, then `parseBody`): pure, for either thread. */
export function decodeAnswer({ id, body }: AnswerInput): unknown {
  return parseBody(schemaOf(id), decode(textOf(body), id), id);
}
