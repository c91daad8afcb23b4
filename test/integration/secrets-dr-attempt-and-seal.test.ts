import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series } from '../helpers/exposition.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The DR operation token attempt and the sealed/standby answers, produced by the secrets simulator
 * and read through vigil's real replication collector.
 */
let sim: SecretsSimulator;
let vigil: TestDaemon;

const call = async (cluster: string, path: string, method = 'POST', body?: unknown) => {
  const res = await fetch(`${sim.cluster(cluster).url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
};
const ATTEMPT = '/v1/sys/replication/dr/secondary/generate-operation-token/attempt';
const S = (name: string, target = 'dr-secondary') => series(`secrets_dr_operation_token_attempt_${name}`, { target });
const failures = (m: Map<string, number>, target: string, reason: string) =>
  m.get(series('vigil_collector_failures_total', { collector: 'secrets_replication', target, reason })) ?? NaN;

beforeAll(async () => {
  sim = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 });
  const t = (name: string) => `  - { name: ${name}, address: "${sim.cluster(name).url}", timeout: 500ms, schedule: "${NEVER}" }\n`;
  vigil = await startTestDaemon(`secrets:\n${t('dr-primary')}${t('dr-secondary')}${t('perf-primary')}`);
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
});
beforeEach(async () => {
  await call('dr-secondary', '/_sim/dr-token-attempt', 'DELETE');
  for (const c of ['dr-secondary', 'perf-primary']) {
    await call(c, '/_sim/faults', 'DELETE');
    await call(c, '/_sim/seal', 'POST', { sealed: false });
  }
});

describe('a DR operation token generation attempt', () => {
  it('is polled on the DR secondary only, and reports none open', async () => {
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.get(S('up'))).toBe(1);
    expect(m.get(S('started'))).toBe(0);
    expect(m.get(S('progress'))).toBe(0);
    expect(m.has(S('first_seen_timestamp_seconds'))).toBe(false);
    expect(m.has(S('up', 'dr-primary'))).toBe(false);
    expect(m.has(S('started', 'perf-primary'))).toBe(false);
  });

  it('started through the API: open, shares counted, first seen now, nonce and OTP nowhere', async () => {
    const { threshold } = await call('dr-secondary', '/_sim/key-shares', 'GET');
    const started = await call('dr-secondary', ATTEMPT, 'POST', {});
    expect(typeof started.otp).toBe('string');
    const before = Date.now() / 1000;
    await vigil.collect();
    const after = Date.now() / 1000;
    let m = await vigil.metrics();
    expect(m.get(S('started'))).toBe(1);
    expect(m.get(S('required'))).toBe(threshold);
    expect(m.get(S('progress'))).toBe(0);
    const firstSeen = m.get(S('first_seen_timestamp_seconds'))!;
    expect(firstSeen).toBeGreaterThanOrEqual(before - 1);
    expect(firstSeen).toBeLessThanOrEqual(after + 1);

    // A key holder supplies a share: progress counts, the attempt's clock keeps running.
    expect((await call('dr-secondary', '/_sim/dr-token-attempt/advance')).progress).toBe(1);
    await vigil.collect();
    m = await vigil.metrics();
    expect(m.get(S('progress'))).toBe(1);
    expect(m.get(S('first_seen_timestamp_seconds'))).toBe(firstSeen);

    const text = await vigil.scrape();
    const logs = JSON.stringify(vigil.logs());
    for (const secret of [started.nonce as string, started.otp as string]) {
      expect(secret.length).toBeGreaterThan(8);
      expect(text).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });

  it('cancelled and restarted between two polls is a new attempt with a new first-seen time', async () => {
    await call('dr-secondary', '/_sim/dr-token-attempt');
    await vigil.collect();
    const first = (await vigil.metrics()).get(S('first_seen_timestamp_seconds'))!;
    // A new attempt needs a first-seen time vigil can tell from the last: the clock past it.
    await waitFor('the clock past the first-seen time', async () => (Date.now() > first * 1000 ? true : undefined), 5_000, { everyMs: 1 });
    await call('dr-secondary', '/_sim/dr-token-attempt', 'DELETE');
    await call('dr-secondary', '/_sim/dr-token-attempt');
    await vigil.collect();
    expect((await vigil.metrics()).get(S('first_seen_timestamp_seconds'))!).toBeGreaterThan(first);
  });

  it('cancelled: closed, and its first-seen time gone', async () => {
    await call('dr-secondary', '/_sim/dr-token-attempt');
    await vigil.collect();
    await call('dr-secondary', ATTEMPT, 'DELETE');
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.get(S('started'))).toBe(0);
    expect(m.has(S('first_seen_timestamp_seconds'))).toBe(false);
  });
});

describe('a sealed or standby secrets service', () => {
  it('sealed: reason sealed, secrets_sealed 1, then 0 once unsealed', async () => {
    await vigil.collect();
    const before = await vigil.metrics();
    expect(before.get(series('secrets_sealed', { target: 'perf-primary' }))).toBe(0);
    await call('perf-primary', '/_sim/seal', 'POST', { sealed: true });
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.get(series('secrets_sealed', { target: 'perf-primary' }))).toBe(1);
    expect(failures(m, 'perf-primary', 'sealed') - failures(before, 'perf-primary', 'sealed')).toBe(2);
    expect(failures(m, 'perf-primary', 'http_5xx') - failures(before, 'perf-primary', 'http_5xx')).toBe(0);
    expect(m.get(series('secrets_sealed', { target: 'dr-primary' }))).toBe(0);
    await call('perf-primary', '/_sim/seal', 'POST', { sealed: false });
    await vigil.collect();
    expect((await vigil.metrics()).get(series('secrets_sealed', { target: 'perf-primary' }))).toBe(0);
  });

  it.each([429, 472, 473])('answered %i: reason standby, seal unknown (absent)', async (code) => {
    const before = await vigil.metrics();
    await call('perf-primary', '/_sim/faults', 'POST', { status: { code, body: { errors: [] } } });
    await vigil.collect();
    const m = await vigil.metrics();
    expect(failures(m, 'perf-primary', 'standby') - failures(before, 'perf-primary', 'standby')).toBe(2);
    expect(m.has(series('secrets_sealed', { target: 'perf-primary' }))).toBe(false);
  });

  it('a 503 without "sealed" stays an http_5xx, and a timeout leaves the seal unknown', async () => {
    const before = await vigil.metrics();
    await call('perf-primary', '/_sim/faults', 'POST', { status: { code: 503, body: { errors: ['maintenance'] } } });
    await vigil.collect();
    const m = await vigil.metrics();
    expect(failures(m, 'perf-primary', 'http_5xx') - failures(before, 'perf-primary', 'http_5xx')).toBe(2);
    expect(failures(m, 'perf-primary', 'sealed') - failures(before, 'perf-primary', 'sealed')).toBe(0);
    expect(m.has(series('secrets_sealed', { target: 'perf-primary' }))).toBe(false);
  });
});
