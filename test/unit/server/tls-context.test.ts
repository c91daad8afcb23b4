import { rmSync, writeFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config-fields/errors.js';
import { clientCertAllowed, secureOptions } from '../../../src/server/tls-context.js';
import type { TlsSettings } from '../../../src/server/web-config.js';
import { makeCa, makeCert } from '../../helpers/certs.js';
import { rejection } from '../../helpers/throws.js';

const ca = makeCa('unit');
const server = makeCert(ca, '127.0.0.1', 'server', 'server');
const other = makeCert(ca, '127.0.0.1', 'server', 'other');
afterAll(() => rmSync(ca.dir, { recursive: true, force: true }));

const base: TlsSettings = {
  certFile: server.cert,
  keyFile: server.key,
  clientAuth: 'NoClientCert',
  minVersion: 'TLSv1.2',
  maxVersion: 'TLSv1.3',
  honorCipherOrder: true,
};

/** What the settings are refused with, one problem a line. */
const problems = async (t: TlsSettings): Promise<string> => (await rejection(ConfigError, secureOptions(t))).problems.join('\n');

describe('TLS settings → what OpenSSL takes', () => {
  it('loads a certificate and its key', async () => {
    await expect(secureOptions(base)).resolves.toMatchObject({ cert: expect.anything(), key: expect.anything() });
  });

  it("names key_file when the key is not the certificate's", async () => {
    expect(await problems({ ...base, keyFile: other.key })).toMatch(/^tls_server_config: key_file: /);
  });

  it('names the file it cannot read', async () => {
    expect(await problems({ ...base, certFile: '/nonexistent/cert.pem' })).toBe('tls_server_config.cert_file: cannot read /nonexistent/cert.pem (ENOENT)');
  });

  it('names cert_file when it is not a certificate', async () => {
    const junk = `${ca.dir}/junk.pem`;
    writeFileSync(junk, 'not a certificate');
    expect(await problems({ ...base, certFile: junk })).toMatch(/^tls_server_config: (cert_file|key_file): /);
  });

  it.each([
    ['NoClientCert', { requestCert: false, rejectUnauthorized: false }],
    ['RequestClientCert', { requestCert: true, rejectUnauthorized: false }],
    ['RequireAnyClientCert', { requestCert: true, rejectUnauthorized: false }],
    ['VerifyClientCertIfGiven', { requestCert: true, rejectUnauthorized: false }],
    ['RequireAndVerifyClientCert', { requestCert: true, rejectUnauthorized: true }],
  ] as const)('%s asks for a client certificate as Go does', async (clientAuth, expected) => {
    expect(await secureOptions({ ...base, clientAuth, clientCaFile: ca.cert })).toMatchObject(expected);
  });
});

describe('client certificate checks after the handshake', () => {
  const socket = (cert: Record<string, unknown> | null, authorized: boolean) => ({ getPeerCertificate: () => cert ?? {}, authorized }) as unknown as TLSSocket;
  const presented = { subject: { CN: 'prometheus' }, subjectaltname: 'DNS:prometheus.example.org, IP Address:10.0.0.1' };

  it.each([
    ['RequireAnyClientCert', null, false, false],
    ['RequireAnyClientCert', presented, false, true],
    ['VerifyClientCertIfGiven', null, false, true],
    ['VerifyClientCertIfGiven', presented, false, false],
    ['VerifyClientCertIfGiven', presented, true, true],
    ['RequestClientCert', presented, false, true],
  ] as const)('%s with %j (authorized %s) → allowed %s', (clientAuth, cert, authorized, allowed) => {
    expect(clientCertAllowed({ ...base, clientAuth }, socket(cert, authorized))).toBe(allowed);
  });

  it("client_allowed_sans: one of the certificate's SANs must be listed", () => {
    const t: TlsSettings = { ...base, clientAuth: 'RequireAndVerifyClientCert', clientAllowedSans: ['prometheus.example.org'] };
    expect(clientCertAllowed(t, socket(presented, true))).toBe(true);
    expect(clientCertAllowed({ ...t, clientAllowedSans: ['10.0.0.1'] }, socket(presented, true))).toBe(true);
    expect(clientCertAllowed({ ...t, clientAllowedSans: ['grafana.example.org'] }, socket(presented, true))).toBe(false);
  });
});
