import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

/** Removes the temp dirs of CAs made by `makeCa`, and every certificate made with them. */
export function removeCas(...cas: Array<Ca | undefined>): void {
  for (const ca of cas) if (ca) rmSync(ca.dir, { recursive: true, force: true });
}

/** A new self-signed CA (EC P-256, valid two days) in its own temp dir: removed with `removeCas`. */
export function makeCa(name: string): Ca {
  const dir = mkdtempSync(join(tmpdir(), `vigil-certs-${name}-`));
  const cert = join(dir, `${name}-ca.pem`);
  const key = join(dir, `${name}-ca.key`);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name} test CA`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
    '-keyout',
    key,
    '-out',
    cert,
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
    kind === 'server' ? 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' : `subjectAltName=DNS:${cn}\nextendedKeyUsage=clientAuth\n`,
  );
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${cn}`, '-keyout', key, '-out', csr]);
  openssl(['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '2', '-extfile', ext, '-out', cert]);
  return { cert, key };
}

const SELF_SIGNED_SUBJECT = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE'];

/**
 * A self-signed certificate for 127.0.0.1 (RSA 2048) in `dir`, as `cert.pem` and `key.pem`, valid
 * for `days`, that can act as its own CA (so `tls.ca_file` can trust it).
 */
export function selfSignedCertificate(dir: string, days: number): CertFiles {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', String(days), ...SELF_SIGNED_SUBJECT, '-keyout', key, '-out', cert]);
  return { cert, key };
}

/**
 * The same, but valid only between two given times (openssl's YYYYMMDDHHMMSSZ), e.g. long expired:
 * `openssl req` cannot set dates, so a minimal `openssl ca` signs the request with its own key.
 */
export function selfSignedCertificateBetween(dir: string, start: string, end: string): CertFiles {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const csr = join(dir, 'req.pem');
  const cnf = join(dir, 'ca.cnf');
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '01\n');
  writeFileSync(
    cnf,
    `[ca]\ndefault_ca = d\n[d]\ndir = ${dir}\ndatabase = ${dir}/index.txt\nnew_certs_dir = ${dir}\nserial = ${dir}/serial\n` +
      'default_md = sha256\npolicy = p\ncopy_extensions = copy\nunique_subject = no\n[p]\ncommonName = supplied\n[req]\ndistinguished_name = dn\n[dn]\n',
  );
  openssl(['req', '-new', '-newkey', 'rsa:2048', '-nodes', ...SELF_SIGNED_SUBJECT, '-keyout', key, '-out', csr, '-config', cnf]);
  openssl(['ca', '-batch', '-selfsign', '-config', cnf, '-keyfile', key, '-in', csr, '-out', cert, '-startdate', start, '-enddate', end, '-notext']);
  return { cert, key };
}
