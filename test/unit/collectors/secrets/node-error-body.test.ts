import { describe, expect, it } from 'vitest';
import { nodeHealthEndpoint } from '../../../../src/collectors/secrets/node-health.js';
import { MAX_TEXT } from '../../../../src/support/cap-text.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { callAs } from '../../../helpers/endpoint-call.js';
import { loopbackUpstream } from '../../../helpers/loopback-upstream.js';

/**
 * A discovered node is any address an answer names: what it says back in an error is shown in the
 * log, /api/v1/targets and the status page, so it is cut to MAX_TEXT and its control characters
 * written out, as any upstream's.
 */
const hostile = `{"errors":["${'\\u001b[2J\\r\\nlevel=info msg=forged '.repeat(20_000)}"]}`;
const node = loopbackUpstream((_req, res) => res.writeHead(502, { 'content-type': 'application/json' }).end(hostile));

describe("a discovered node's error body", () => {
  it('is bounded and printable in the error it makes', async () => {
    expect(hostile.length).toBeGreaterThan(700_000);
    const err = await callAs(nodeHealthEndpoint as never, {}, node.client(), { item: 'http://node' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UpstreamError);
    const message = (err as UpstreamError).message;
    expect(message.length).toBeLessThan(MAX_TEXT + 100);
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(message).toContain('\\u001b');
  });
});
