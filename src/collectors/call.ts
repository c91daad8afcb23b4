import type { BuildContext } from '../jobs/context.js';
import type { AnswerMemo } from '../upstream/answer-memo.js';
import type { UpstreamClient } from '../upstream/client.js';
import { UpstreamError } from '../upstream/errors.js';
import { decode } from '../upstream/decode.js';
import { parseBody, textOf } from '../upstream/parse.js';
import { decodeAnswer, LARGE_ANSWER_BYTES } from './decode-answer.js';
import { decodeTask } from './decoding.js';
import { admitAnswer } from '../jobs/answers-in-flight.js';
import type { AnyEndpoint, Answer, Sent, Within } from './endpoint.js';

/** Where one call goes and what it runs with: the client (the target's, or a node's), the run's signal, the target's memo, the decoding threads. */
export interface Reach {
  readonly client: UpstreamClient;
  readonly signal: AbortSignal;
  readonly memo: AnswerMemo;
  readonly decoding: Pick<BuildContext, 'offload' | 'turns' | 'answers'>;
  readonly within: Within;
}

/** The declared path with its `{x}` placeholders filled, each value one path segment. */
export function fillPath(e: Pick<AnyEndpoint, 'id' | 'path'>, params: Readonly<Record<string, string>> = {}): string {
  return e.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new UpstreamError('internal', `${e.id}: nothing fills {${name}} of ${e.path}`);
    return encodeURIComponent(value);
  });
}

const joined = (a: Sent, b: Sent): Sent => ({
  ...a,
  ...b,
  params: { ...a.params, ...b.params },
  query: a.query || b.query ? { ...a.query, ...b.query } : undefined,
  headers: { ...a.headers, ...b.headers },
});

/**
 * Makes an endpoint's call as declared: its path (placeholders filled from what `send` gives), its
 * id as the request's `endpoint` label and its errors' prefix, the answer read through its schema
 * (or its decoding task, off the collection thread for a large answer, remembered by the target's
 * memo under the request's query, read in its turn of the answers in flight), then its `read` (a listing's pages, a field of the answer).
 */
export async function callEndpoint(e: AnyEndpoint, call: unknown, item: unknown, reach: Reach): Promise<unknown> {
  const base: Sent = (await e.send?.(call as never, item as never)) ?? {};
  const get = async (more: Sent = {}, received?: (bytes: number) => void): Promise<Answer<unknown>> => {
    const sent = joined(base, more);
    const request = {
      endpoint: e.id,
      method: e.method,
      path: fillPath(e, sent.params),
      ...(sent.query ? { query: { ...sent.query } } : {}),
      headers: { ...sent.headers },
      ...(sent.body === undefined ? {} : { body: sent.body }),
      ...(e.dataStatuses ? { dataStatuses: e.dataStatuses } : {}),
      signal: reach.signal,
    };
    if (!e.offload) {
      const res = await reach.client.bytes(request);
      const value =
        res.body.length < LARGE_ANSWER_BYTES
          ? parseBody(e.schema, decode(textOf(res.body.bytes()), e.id), e.id)
          : await decodeTask(reach.decoding, decodeAnswer, res.body, (body) => ({ id: e.id, body }), LARGE_ANSWER_BYTES);
      return { status: res.status, headers: res.headers, value };
    }
    const remembered = { memo: reach.memo, endpoint: e.id, key: new URLSearchParams(sent.query).toString() };
    // an answer the memo holds as it comes again was searched for these secrets last time
    const knownClean = (digest: Buffer, secrets: string) => reach.memo.knowsClean(e.id, remembered.key, digest, secrets);
    const admit = admitAnswer(reach.decoding.answers, reach.memo, e.id, remembered.key);
    const res = await reach.client.bytes({ ...request, knownClean, admit });
    try {
      received?.(res.body.length);
      const offload = e.offload;
      const input = (body: Buffer) => offload.input(body, call as never, item as never, sent);
      return {
        status: res.status,
        headers: res.headers,
        value: await decodeTask(reach.decoding, offload.task, res.body, input as never, offload.from, remembered),
      };
    } finally {
      // decoded, known again, or refused unread (a listing past its bound): its turn goes back
      res.body.release();
    }
  };
  return e.read ? e.read(get as never, call as never, item as never, reach.within) : (await get()).value;
}
