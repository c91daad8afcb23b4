import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { selfSignedCertificate } from '../helpers/certs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series } from '../helpers/exposition.js';
import { tempDir } from '../helpers/temp-dir.js';

/** An upstream served over TLS with a certificate no system root trusts. */
const dir = tempDir('vigil-tls-');
const { cert, key } = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
let server: https.Server;
let address = '';
let vigil: TestDaemon;

beforeAll(async () => {
  selfSignedCertificate(dir, 2);
  server = https.createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"mode":"disabled"}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  address = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const t = (name: string, tls: string) => `  - name: ${name}\n    address: ${address}\n    schedule: "${NEVER}"\n    replication_kinds: [dr]\n${tls}`;
  vigil = await startTestDaemon(
    `secrets:\n${t('untrusted', '')}${t('with-ca', `    tls: { ca_file: ${cert} }\n`)}${t('insecure', '    tls: { insecure_skip_verify: true }\n')}`,
  );
});
afterAll(async () => {
  await vigil?.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('TLS to an upstream', () => {
  it('refuses an unknown certificate with reason tls', async () => {
    const m = await vigil.metrics();
    expect(m.get(series('secrets_replication_up', { target: 'untrusted', kind: 'dr' }))).toBe(0);
    expect(m.get(series('vigil_collector_failures_total', { collector: 'secrets_replication', target: 'untrusted', reason: 'tls' }))).toBe(1);
  });

  it('trusts it through tls.ca_file', async () => {
    expect((await vigil.metrics()).get(series('secrets_replication_up', { target: 'with-ca', kind: 'dr' }))).toBe(1);
  });

  it('accepts it with insecure_skip_verify', async () => {
    expect((await vigil.metrics()).get(series('secrets_replication_up', { target: 'insecure', kind: 'dr' }))).toBe(1);
  });
});
