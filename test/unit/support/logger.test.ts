import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logfmtLine } from '../../../src/support/logger.js';

function capture(format: 'json' | 'logfmt') {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  return { log: createLogger('debug', format, out), text: () => text };
}

describe('logs', () => {
  it('redacts tokens wherever a log call puts them', () => {
    const { log, text } = capture('json');
    log.warn({ token: 's.abc', target: { token: 's.def' }, headers: { 'x-secrets-token': 's.ghi' }, dr_operation_token: 's.jkl' }, 'x');
    expect(text()).not.toMatch(/s\.(abc|def|ghi|jkl)/);
    expect(text()).toContain('[REDACTED]');
  });

  it('writes logfmt with quoting where needed', () => {
    expect(logfmtLine(JSON.stringify({ time: 't', level: 'warn', msg: 'collection failed', target: 'east', err: 'a "b"' }))).toBe(
      'ts=t level=warn msg="collection failed" target=east err="a \\"b\\""\n',
    );
  });

  it.each(['logfmt', 'json'] as const)('in %s: bounds each field of a line, however much upstream text a field carries', (format) => {
    const { log, text } = capture(format);
    const address = `https://${'a'.repeat(2_000_000)}:8200`;
    log.warn({ part: `secrets/node-health ${address}`, node: { address }, nodes: [address], target: 'big' }, 'collection failed');
    expect(text().length).toBeLessThan(8 * 1024);
    expect(text()).toContain('target');
    expect(text()).toContain('more characters');
  });

  it('writes one JSON object per line in json format', () => {
    const { log, text } = capture('json');
    log.info({ target: 'east' }, 'hello');
    const line = JSON.parse(text().trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'info', msg: 'hello', target: 'east' });
  });

  describe('escape what an upstream or sender could use to forge a line or drive a terminal', () => {
    const hostile = 'denied\r\nts=2026-01-01T00:00:00Z level=info msg="all good"\u001b[2J\u009b31m\u2028end';

    it.each(['logfmt', 'json'] as const)('in %s: one line, no raw CR, ESC, C1 or line separator', (format) => {
      const { log, text } = capture(format);
      log.warn({ err: hostile, user_agent: '\u001b]0;title\u0007' }, 'collection failed');
      const out = text();
      expect(out.split('\n').filter(Boolean)).toHaveLength(1);
      expect(out).not.toMatch(/[\r\u001b\u0007\u009b\u2028]/);
      if (format === 'json') expect((JSON.parse(out) as { err: string }).err).toBe(hostile);
    });

    it('quotes a logfmt value that holds a control character even without spaces', () => {
      expect(logfmtLine(JSON.stringify({ time: 't', level: 'warn', a: 'x\u001by' }))).toBe('ts=t level=warn a="x\\u001by"\n');
    });
  });
});
