import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SUBJECT = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE'];

/**
 * A self-signed certificate for 127.0.0.1 made with openssl in `dir`, valid for `days`, that can act
 * as its own CA (so `tls.ca_file` can trust it). Returns the PEM paths.
 */
export function selfSignedCertificate(dir: string, days: number): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', String(days), ...SUBJECT, '-keyout', key, '-out', cert], {
    stdio: 'ignore',
  });
  return { cert, key };
}

/**
 * The same, but valid only between two given times (openssl's YYYYMMDDHHMMSSZ), e.g. long expired:
 * `openssl req` cannot set dates, so a minimal `openssl ca` signs the request with its own key.
 */
export function selfSignedCertificateBetween(dir: string, start: string, end: string): { cert: string; key: string } {
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
  execFileSync('openssl', ['req', '-new', '-newkey', 'rsa:2048', '-nodes', ...SUBJECT, '-keyout', key, '-out', csr, '-config', cnf], { stdio: 'ignore' });
  execFileSync('openssl', ['ca', '-batch', '-selfsign', '-config', cnf, '-keyfile', key, '-in', csr, '-out', cert, '-startdate', start, '-enddate', end, '-notext'], {
    stdio: 'ignore',
  });
  return { cert, key };
}
