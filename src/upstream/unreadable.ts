import type { Dispatcher } from 'undici';
import { UpstreamError } from './errors.js';

/**
 * A redirect's body is not data (and its Location is not followed: a token must not travel to
 * another origin); a compressed body was not asked for, and inflating it would bypass the size cap.
 */
export function refuseUnreadable(res: Dispatcher.ResponseData, endpoint: string): void {
  if (res.statusCode >= 300 && res.statusCode < 400) {
    discard(res);
    throw new UpstreamError('redirect', `${endpoint}: HTTP ${res.statusCode} redirect, not followed (point the address at the final URL)`, res.statusCode);
  }
  const encoding = String(res.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    discard(res);
    throw new UpstreamError(
      'decode',
      `${endpoint}: answer is compressed (content-encoding ${JSON.stringify(encoding.slice(0, 40))}) although vigil asked for none`,
    );
  }
}

/** Drops a body unread (the connection goes with it); the abort this causes is expected, not an error. */
function discard(res: Dispatcher.ResponseData): void {
  res.body.on('error', () => undefined);
  res.body.destroy();
}
