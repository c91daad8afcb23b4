import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logfmtLine } from '../../src/log/logger.js';

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

  it('writes one JSON object per line in json format', () => {
    const { log, text } = capture('json');
    log.info({ target: 'east' }, 'hello');
    const line = JSON.parse(text().trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'info', msg: 'hello', target: 'east' });
  });
});
