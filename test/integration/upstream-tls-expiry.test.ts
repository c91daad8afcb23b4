import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate, selfSignedCertificateBetween } from '../helpers/certs.js';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series, seriesOf } from '../helpers/exposition.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The secrets simulator served over TLS with a certificate that expires within a day (made with
 * openssl in a temp dir), read by vigil: the chain's earliest expiry, as openssl itself states it,
 * and the verification result, whether vigil trusts the certificate, skips verification, or refuses.
 */
const dir = tempDir('vigil-tls-expiry-');
const { cert, key } = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
let sim: SecretsSimulator;
let vigil: TestDaemon;
let notAfter = 0;

beforeAll(async () => {
  selfSignedCertificate(dir, 1);
  // What openssl says, not what vigil computes: "notAfter=Nov 24 07:45:00 2026 GMT".
  const enddate = execFileSync('openssl', ['x509', '-enddate', '-noout', '-in', cert], { encoding: 'utf8' });
  notAfter = Date.parse(enddate.trim().replace(/^notAfter=/, '')) / 1000;
  sim = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000, tls: { cert: readFileSync(cert), key: readFileSync(key) } });
  const url = sim.cluster('dr-primary').url;
  const t = (name: string, tls: string) => `  - { name: ${name}, address: "${url}", schedule: "${NEVER}", replication_kinds: [dr]${tls} }\n`;
  vigil = await startTestDaemon(
    `secrets:\n${t('trusted', `, tls: { ca_file: ${cert} }`)}${t('insecure', ', tls: { insecure_skip_verify: true }')}${t('untrusted', '')}` +
      `  - { name: plain, address: "http://127.0.0.1:9", schedule: "${NEVER}", timeout: 300ms }\n`,
  );
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
});

/** A target's one series of `name`, whatever certificate it names (the certificate's own test is below). */
const ofTarget = (name: string) => (target: string) => ({ target, name });
const expiry = ofTarget('vigil_upstream_tls_earliest_cert_expiry_timestamp_seconds');
const verified = ofTarget('vigil_upstream_tls_verified');
/** The value of a target's one series, and its certificate label. */
function read(m: Map<string, number>, s: { target: string; name: string }): number | undefined {
  const found = [...seriesOf(m, s.name)].filter(([k]) => k.includes(`target="${s.target}"`));
  if (found.length > 1) throw new Error(`${s.name}: ${found.length} series for ${s.target}`);
  return found[0]?.[1];
}

describe('upstream TLS certificate expiry', () => {
  it('serves the simulator over https with the short-lived certificate', () => {
    expect(sim.cluster('dr-primary').url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(notAfter - Date.now() / 1000).toBeLessThan(2 * 86_400);
  });

  it('exports the expiry openssl states, and verified 1, for a trusted target', async () => {
    const m = await vigil.metrics();
    expect(m.get(series('secrets_replication_up', { target: 'trusted', kind: 'dr' }))).toBe(1);
    expect(read(m, expiry('trusted'))).toBe(notAfter);
    expect(read(m, verified('trusted'))).toBe(1);
  });

  it('exports it with verified 0 for a target that skips verification, and still collects', async () => {
    const m = await vigil.metrics();
    expect(m.get(series('secrets_replication_up', { target: 'insecure', kind: 'dr' }))).toBe(1);
    expect(read(m, expiry('insecure'))).toBe(notAfter);
    expect(read(m, verified('insecure'))).toBe(0);
  });

  it('exports it for a target that refuses the certificate, which fails with reason tls', async () => {
    const m = await vigil.metrics();
    expect(m.get(series('secrets_replication_up', { target: 'untrusted', kind: 'dr' }))).toBe(0);
    expect(m.get(series('vigil_collector_failures_total', { collector: 'secrets_replication', target: 'untrusted', reason: 'tls' }))).toBeGreaterThan(0);
    expect(read(m, expiry('untrusted'))).toBe(notAfter);
    expect(read(m, verified('untrusted'))).toBe(0);
  });

  it("labels them with the leaf certificate's SHA-256 fingerprint, its first 16 hex digits", async () => {
    const id = new X509Certificate(readFileSync(cert)).fingerprint256.replace(/:/g, '').slice(0, 16).toLowerCase();
    const m = await vigil.metrics();
    expect(m.get(series('vigil_upstream_tls_earliest_cert_expiry_timestamp_seconds', { target: 'trusted', certificate: id }))).toBe(notAfter);
    expect(m.get(series('vigil_upstream_tls_verified', { target: 'trusted', certificate: id }))).toBe(1);
  });

  it('exports nothing for a plain-http target', async () => {
    const m = await vigil.metrics();
    expect(read(m, expiry('plain'))).toBeUndefined();
    expect(read(m, verified('plain'))).toBeUndefined();
  });

  it('reads the expiry of a certificate that has already expired, and fails with reason tls even when it is trusted', async () => {
    const old = tempDir('vigil-tls-expired-');
    const expired = selfSignedCertificateBetween(old, '20200101000000Z', '20200102000000Z');
    const stale = await startSecretsSimulator(demoSecretsScenario(), {
      walTickMs: 3_600_000,
      tls: { cert: readFileSync(expired.cert), key: readFileSync(expired.key) },
    });
    const d = await startTestDaemon(
      `secrets:\n  - { name: expired, address: "${stale.cluster('dr-primary').url}", schedule: "${NEVER}", replication_kinds: [dr], tls: { ca_file: ${expired.cert} } }\n`,
    );
    try {
      const m = await d.metrics();
      expect(read(m, expiry('expired'))).toBe(Date.parse('2020-01-02T00:00:00Z') / 1000);
      expect(read(m, verified('expired'))).toBe(0);
      expect(m.get(series('secrets_replication_up', { target: 'expired', kind: 'dr' }))).toBe(0);
      expect(m.get(series('vigil_collector_failures_total', { collector: 'secrets_replication', target: 'expired', reason: 'tls' }))).toBe(1);
      expect(String(d.logs().find((l) => l.reason === 'tls')?.err)).toContain('CERT_HAS_EXPIRED');
    } finally {
      await d.close();
      await stale.close();
    }
  });

  it('keeps the expiry across later polls on the kept-alive or resumed connection', async () => {
    await vigil.collect();
    await vigil.collect();
    expect(read(await vigil.metrics(), expiry('trusted'))).toBe(notAfter);
  });
});
