import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireTool } from './tools.js';

/** Short-lived certificates made with Debian's openssl in a temp dir, for the TLS tests. */

export interface CertFiles {
  cert: string;
  key: string;
}

export interface Ca extends CertFiles {
  dir: string;
  name: string;
}

const openssl = (args: string[]) => execFileSync(requireTool('openssl', 'apt-get install openssl'), args, { stdio: 'pipe' });

/** A new self-signed CA (EC P-256, valid two days) in its own temp dir. */
export function makeCa(name: string): Ca {
  const dir = mkdtempSync(join(tmpdir(), `vigil-certs-${name}-`));
  const cert = join(dir, `${name}-ca.pem`);
  const key = join(dir, `${name}-ca.key`);
  openssl([
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', `/CN=${name} test CA`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign',
    '-keyout', key, '-out', cert,
  ]);
  return { dir, name, cert, key };
}

/**
 * A leaf certificate signed by `ca`: a server one for 127.0.0.1 (`kind: 'server'`) or a client one
 * (`kind: 'client'`, SAN `DNS:<cn>`). Written as `<file>.pem` and `<file>.key` (overwritten: rotation).
 */
export function makeCert(ca: Ca, cn: string, kind: 'server' | 'client', file = cn): CertFiles {
  const cert = join(ca.dir, `${file}.pem`);
  const key = join(ca.dir, `${file}.key`);
  const csr = join(ca.dir, `${file}.csr`);
  const ext = join(ca.dir, `${file}.ext`);
  writeFileSync(
    ext,
    kind === 'server'
      ? 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n'
      : `subjectAltName=DNS:${cn}\nextendedKeyUsage=clientAuth\n`,
  );
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${cn}`, '-keyout', key, '-out', csr]);
  openssl(['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '2', '-extfile', ext, '-out', cert]);
  return { cert, key };
}
