import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../../src/upstream/redact.js';
import { redactReceived } from '../../../src/upstream/redact-bytes.js';
import { Received } from '../../../src/upstream/received.js';

const redactBytes = (bytes: Buffer, secrets: string[]) => redactReceived(Received.of(bytes), secrets).bytes();

const SECRET = 'agent-token-1234';

describe('redactReceived on a body of one chunk', () => {
  it('returns a body with no secret in it as it is, without a copy', () => {
    const body = Buffer.from('{"Members":[{"Name":"a"}]}');
    expect(redactBytes(body, [SECRET])).toBe(body);
    expect(redactBytes(body, [])).toBe(body);
  });

  it('replaces a secret echoed raw or hidden behind JSON escapes', () => {
    const raw = redactBytes(Buffer.from(`{"Members":[{"Name":"${SECRET}"}]}`), [SECRET]).toString();
    expect(raw).not.toContain(SECRET);
    expect(JSON.parse(raw)).toEqual({ Members: [{ Name: REDACTED }] });
    const escaped = Buffer.from(`{"Members":[{"Name":"\\u0061gent-token-1234"}]}`);
    const out = redactBytes(escaped, [SECRET]).toString();
    expect(JSON.parse(out)).toEqual({ Members: [{ Name: REDACTED }] });
  });
});
