import { describe, expect, it } from 'vitest';
import { attemptClock, attemptFamilies } from '../../../../src/collectors/secrets/dr-operation-token-attempt.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { secretsReason } from '../../../../src/collectors/secrets/availability.js';
import { operationTokenAttemptResponse } from '../../../../src/collectors/secrets/dr-operation-token-attempt.js';
import { parseBody } from '../../../../src/upstream/parse.js';
import { series } from '../../../helpers/exposition.js';
import { renderSamples } from '../../../helpers/render.js';

const parse = (body: unknown) => parseBody(operationTokenAttemptResponse, body, 'attempt');
/** The attempt object as the spec lists its fields (top level, like the root-token attempt). */
const open = {
  started: true,
  nonce: 'c1a3e1d0-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
  progress: 2,
  required: 3,
  complete: false,
  encoded_token: '',
  pgp_fingerprint: '',
  otp: 'secretotp0123456789abcdefghij',
  otp_length: 28,
};

describe('GET dr/secondary/generate-operation-token/attempt', () => {
  it('reads the top-level form, numbers as strings, and a data envelope alike', () => {
    expect(parse(open)).toMatchObject({ started: true, progress: 2, required: 3, complete: false });
    expect(parse({ ...open, progress: '2', required: '3', started: 'true' })).toMatchObject({ started: true, progress: 2, required: 3 });
    expect(parse({ data: open, request_id: 'r' })).toMatchObject({ started: true, progress: 2 });
  });

  it('reads no attempt (started false, empty nonce)', () => {
    expect(parse({ started: false, nonce: '', progress: 0, required: 3, complete: false })).toMatchObject({ started: false, nonce: undefined });
  });

  it('keeps neither the OTP nor the encoded token', () => {
    const parsed = parse({ ...open, encoded_token: 'ZW5jb2RlZA' });
    expect(JSON.stringify(parsed)).not.toContain('secretotp');
    expect(JSON.stringify(parsed)).not.toContain('ZW5jb2RlZA');
  });

  it('a field it cannot read costs only its own series (started unreadable: the attempt is unknown)', () => {
    const s = renderSamples(attemptFamilies, attemptClock()(parse({ ...open, started: 'maybe', progress: [2] })), { target: 'dr' });
    expect(s.has(series('secrets_dr_operation_token_attempt_started', { target: 'dr' }))).toBe(false);
    expect(s.get(series('secrets_dr_operation_token_attempt_required', { target: 'dr' }))).toBe(open.required);
  });

  it('an answer without started leaves the attempt unknown: no started, progress or first-seen series', () => {
    const s = renderSamples(attemptFamilies, attemptClock()(parse({ required: 3 })), { target: 'dr' });
    expect(s.has(series('secrets_dr_operation_token_attempt_started', { target: 'dr' }))).toBe(false);
    expect(s.has(series('secrets_dr_operation_token_attempt_progress', { target: 'dr' }))).toBe(false);
    expect(s.has(series('secrets_dr_operation_token_attempt_first_seen_timestamp_seconds', { target: 'dr' }))).toBe(false);
    expect(s.get(series('secrets_dr_operation_token_attempt_required', { target: 'dr' }))).toBe(3);
  });

  it('exports counts and the first-seen time, never the nonce', () => {
    let t = 1_000_000;
    const clock = attemptClock(() => t);
    const s = renderSamples(attemptFamilies, clock(parse(open)), { target: 'dr' });
    expect(s.get(series('secrets_dr_operation_token_attempt_started', { target: 'dr' }))).toBe(1);
    expect(s.get(series('secrets_dr_operation_token_attempt_progress', { target: 'dr' }))).toBe(2);
    expect(s.get(series('secrets_dr_operation_token_attempt_first_seen_timestamp_seconds', { target: 'dr' }))).toBe(1000);
    expect([...s.keys()].join()).not.toContain(open.nonce);
    t += 60_000;
    expect(clock(parse(open)).firstSeen).toBe(1000);
    expect(clock(parse({ ...open, nonce: 'another' })).firstSeen).toBe(1060);
    expect(clock(parse({ ...open, complete: true })).firstSeen).toBeUndefined();
    expect(clock(parse({ ...open, started: false })).started).toBe(false);
  });
});

describe('the secrets service saying it does not serve', () => {
  it.each([
    [503, 'status: HTTP 503: Vault is sealed', 'sealed'],
    [503, 'status: HTTP 503: service is sealed', 'sealed'],
    [503, 'status: HTTP 503: maintenance', undefined],
    [429, 'status: HTTP 429', 'standby'],
    [472, 'status: HTTP 472', 'standby'],
    [473, 'status: HTTP 473', 'standby'],
    [500, 'status: HTTP 500: sealed', undefined],
  ])('%i %s → %s', (status, message, reason) => {
    expect(secretsReason(new UpstreamError('http_5xx', message, status))).toBe(reason);
  });
});
