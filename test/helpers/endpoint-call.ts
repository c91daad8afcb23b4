import { callEndpoint } from '../../src/collectors/call.js';
import type { AnyEndpoint, Within } from '../../src/collectors/endpoint.js';
import type { Offload } from '../../src/offload/pool.js';
import { Turns } from '../../src/support/turns.js';
import type { ByteBudget } from '../../src/support/byte-budget.js';
import { answersInFlight } from '../../src/jobs/answers-in-flight.js';
import { AnswerMemo } from '../../src/upstream/answer-memo.js';
import type { UpstreamClient } from '../../src/upstream/client.js';

const noOffload: Offload = { run: () => Promise.reject(new Error('this test decodes every answer in its own thread')) };
const nothingWithin: Within = { get: () => undefined };

/**
 * Makes an endpoint's call as a job makes it (its declaration's path, request, schema and read),
 * through `client`, with what the call shares given by the test. `read` replaces the declaration's,
 * for a test that drives the answers itself (a listing over pages); `within` gives the endpoints a
 * call makes from inside (a team's show).
 */
export function callAs(
  endpoint: AnyEndpoint,
  call: unknown,
  client: UpstreamClient,
  opts: { item?: string; read?: AnyEndpoint['read']; within?: Within; memo?: AnswerMemo; offload?: Offload; answers?: ByteBudget } = {},
): Promise<unknown> {
  const e = opts.read ? { ...endpoint, read: opts.read } : endpoint;
  return callEndpoint(e, call, opts.item, {
    client,
    signal: AbortSignal.timeout(10_000),
    memo: opts.memo ?? new AnswerMemo(),
    decoding: { offload: opts.offload ?? noOffload, turns: new Turns(), answers: opts.answers ?? answersInFlight() },
    within: opts.within ?? nothingWithin,
  });
}
