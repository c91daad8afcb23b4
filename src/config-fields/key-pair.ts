import { X509Certificate, createPrivateKey } from 'node:crypto';
import { MAX_CONFIG_FILE_BYTES, MAX_SECRET_FILE_BYTES, fileProblem, readBoundedFile, readBoundedFileSync } from './bounded-file.js';

/**
 * A client certificate and its private key (PEM), as vigil presents them to an upstream
 * (`tls.cert_file`, `tls.key_file`). Checked together, so that a key that is not the certificate's
 * is refused by name at load rather than by the upstream's handshake later.
 */
export interface KeyPair {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** Why a pair cannot be used, naming the key at fault; never a byte of either file. */
export class KeyPairError extends Error {
  constructor(
    readonly key: 'cert_file' | 'key_file',
    message: string,
  ) {
    super(message);
    this.name = 'KeyPairError';
  }
}

/** The pair's problem, or undefined when the key is the certificate's. */
export function keyPairProblem(pair: KeyPair): KeyPairError | undefined {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pair.cert);
  } catch {
    return new KeyPairError('cert_file', 'not a PEM certificate');
  }
  try {
    if (!cert.checkPrivateKey(createPrivateKey(pair.key))) return new KeyPairError('key_file', 'is not the private key of tls.cert_file (they do not match)');
  } catch {
    return new KeyPairError('key_file', 'not an unencrypted PEM private key');
  }
  return undefined;
}

const unreadable = (key: 'cert_file' | 'key_file', path: string, e: unknown) => new KeyPairError(key, `cannot read file "${path}" (${fileProblem(e)})`);

function checked(pair: KeyPair): KeyPair {
  const problem = keyPairProblem(pair);
  if (problem) throw problem;
  return pair;
}

/** Reads and checks a pair now (config load); throws KeyPairError. */
export function readKeyPairSync(certFile: string, keyFile: string): KeyPair {
  let cert: Buffer;
  let key: Buffer;
  try {
    cert = readBoundedFileSync(certFile, MAX_CONFIG_FILE_BYTES);
  } catch (e) {
    throw unreadable('cert_file', certFile, e);
  }
  try {
    key = readBoundedFileSync(keyFile, MAX_SECRET_FILE_BYTES);
  } catch (e) {
    throw unreadable('key_file', keyFile, e);
  }
  return checked({ cert, key });
}

/** Reads and checks a pair without blocking the event loop (a rotation); throws KeyPairError. */
export async function readKeyPair(certFile: string, keyFile: string): Promise<KeyPair> {
  const [cert, key] = await Promise.all([
    readBoundedFile(certFile, MAX_CONFIG_FILE_BYTES).catch((e: unknown) => Promise.reject(unreadable('cert_file', certFile, e))),
    readBoundedFile(keyFile, MAX_SECRET_FILE_BYTES).catch((e: unknown) => Promise.reject(unreadable('key_file', keyFile, e))),
  ]);
  return checked({ cert, key });
}
