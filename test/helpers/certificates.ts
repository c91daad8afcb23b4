import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * A self-signed certificate for 127.0.0.1 made with openssl in `dir`, valid for `days`, that can act
 * as its own CA (so `tls.ca_file` can trust it). Returns the PEM paths.
 */
export function selfSignedCertificate(dir: string, days: number): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', String(days), '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE',
    '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  return { cert, key };
}
