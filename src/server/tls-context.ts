import { readFile } from 'node:fs/promises';
import type { TLSSocket } from 'node:tls';
import tls from 'node:tls';
import { ConfigError } from '../config-fields/errors.js';
import type { TlsSettings } from './web-config.js';

/** What `tls.createServer` and `setSecureContext` take, read from a web config's files. */
export type SecureOptions = tls.SecureContextOptions & Pick<tls.TlsOptions, 'requestCert' | 'rejectUnauthorized'>;

async function readPem(path: string, key: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new ConfigError([`tls_server_config.${key}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`]);
  }
}

/**
 * Reads the certificate, key and client CA and checks that OpenSSL takes them (a key that does not
 * match its certificate, a cipher or curve this OpenSSL lacks): the error names the key.
 */
export async function secureOptions(t: TlsSettings): Promise<SecureOptions> {
  const [cert, key, ca] = await Promise.all([
    t.certFile ? readPem(t.certFile, 'cert_file') : t.cert,
    t.keyFile ? readPem(t.keyFile, 'key_file') : t.key,
    t.clientCaFile ? readPem(t.clientCaFile, 'client_ca_file') : t.clientCa,
  ]);
  // OpenSSL 3 refuses TLS 1.0 and 1.1 below security level 0: a file that asks for them gets them.
  const legacy = t.minVersion === 'TLSv1' || t.minVersion === 'TLSv1.1';
  const ciphers = legacy ? `${t.ciphers ?? 'DEFAULT'}:@SECLEVEL=0` : t.ciphers;
  const verify = t.clientAuth === 'RequireAndVerifyClientCert' || t.clientAuth === 'VerifyClientCertIfGiven';
  const opts: SecureOptions = {
    cert,
    key,
    ...(ca && verify ? { ca } : {}),
    minVersion: t.minVersion,
    maxVersion: t.maxVersion,
    honorCipherOrder: t.honorCipherOrder,
    ...(ciphers ? { ciphers } : {}),
    ...(t.ecdhCurve ? { ecdhCurve: t.ecdhCurve } : {}),
    requestCert: t.clientAuth !== 'NoClientCert',
    // Only this type is enforced by OpenSSL itself; the others are checked once the handshake is done.
    rejectUnauthorized: t.clientAuth === 'RequireAndVerifyClientCert',
  };
  try {
    tls.createSecureContext(opts);
  } catch (e) {
    throw new ConfigError([`tls_server_config: ${whichKey(e as Error)}: ${(e as Error).message}`]);
  }
  return opts;
}

/** Names the key an OpenSSL error comes from, as far as its message tells. */
function whichKey(e: Error & { code?: string }): string {
  const m = `${e.code ?? ''} ${e.message}`;
  if (/cipher/i.test(m)) return 'cipher_suites';
  if (/curve|group/i.test(m)) return 'curve_preferences';
  if (/KEY_VALUES_MISMATCH|private key|bad decrypt|key/i.test(m)) return 'key_file';
  if (/version|protocol/i.test(m)) return 'min_version';
  return 'cert_file';
}

/**
 * What OpenSSL does not enforce for a client-auth type, checked once the handshake is done: a
 * client that fails it is disconnected before it can send a request.
 */
export function clientCertAllowed(t: TlsSettings, socket: TLSSocket): boolean {
  const peer = socket.getPeerCertificate();
  const presented = peer !== null && Object.keys(peer).length > 0;
  switch (t.clientAuth) {
    case 'RequireAnyClientCert':
      if (!presented) return false;
      break;
    case 'VerifyClientCertIfGiven':
      if (presented && !socket.authorized) return false;
      break;
    default:
      break;
  }
  if (!t.clientAllowedSans) return true;
  const sans = (peer?.subjectaltname ?? '').split(/,\s*/).map((s) => s.replace(/^(DNS|IP Address|email|URI):/, ''));
  return sans.some((s) => t.clientAllowedSans!.includes(s));
}

/** The files a TLS setting reads, to notice a rotation. */
export function tlsFiles(t: TlsSettings): string[] {
  return [t.certFile, t.keyFile, t.clientCaFile].filter((f): f is string => f !== undefined);
}
