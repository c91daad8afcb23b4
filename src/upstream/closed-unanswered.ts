import type { Dispatcher } from 'undici';

/** Methods that, sent twice, do what they do sent once (RFC 9110, 9.2.2): every request of vigil's but the merkle check's POST. */
const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** A connection closed or reset under a request: undici's "other side closed", a reset, a broken pipe. */
const CLOSED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * Whether an attempt that got no answer at all (not a status line) is sent once more, at once, on
 * another connection. An upstream closes a kept-alive connection when it has been idle for its own
 * timeout, and undici may have sent a request down it in the same moment: the request fails though
 * the upstream is well, and more often the busier the machine (seen at a million series, a few
 * jobs of a collection failing "other side closed"). Clients do the same (Go's net/http sends an
 * idempotent request again when its reused connection closes before an answer). A second failure
 * is the upstream's, and the request fails with it; a POST is never sent again.
 */
export function sendAgainOnce(err: unknown, method: Dispatcher.HttpMethod = 'GET'): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && CLOSED.has(code) && IDEMPOTENT.has(method);
}
