import { randomUUID } from 'node:crypto';
import { badRequest } from './api-error.js';
import { randomBase62, type ClusterModel } from './cluster.js';

/** DR operation tokens: generated from unseal key shares, one attempt at a time, no TTL. */

const TOKEN_LENGTH = 28;

export function mintOperationToken(cluster: ClusterModel): string {
  const token = `sdr.${randomBase62(TOKEN_LENGTH - 4)}`;
  cluster.operationTokens.add(token);
  return token;
}

export function anyOperationToken(cluster: ClusterModel): string {
  const [first] = cluster.operationTokens;
  return first ?? mintOperationToken(cluster);
}

export function revokeOperationToken(cluster: ClusterModel, token: string): void {
  cluster.operationTokens.delete(token);
}

function xor(a: Buffer, b: Buffer): Buffer {
  return Buffer.from(a.map((byte, i) => byte ^ (b[i] ?? 0)));
}

/** The token travels XORed with the OTP the caller got at the start, so a log of the answer leaks nothing. */
export function encodeOperationToken(token: string, otp: string): string {
  return xor(Buffer.from(token), Buffer.from(otp)).toString('base64').replace(/=+$/, '');
}

export function decodeOperationToken(encoded: string, otp: string): string {
  return xor(Buffer.from(encoded, 'base64'), Buffer.from(otp)).toString('utf8');
}

export interface AttemptView {
  started: boolean;
  nonce: string;
  progress: number;
  required: number;
  complete: boolean;
  encoded_token: string;
  otp_length: number;
  otp?: string;
}

export function attemptView(cluster: ClusterModel): AttemptView {
  const attempt = cluster.attempt;
  return {
    started: attempt !== undefined,
    nonce: attempt?.nonce ?? '',
    progress: attempt?.provided.size ?? 0,
    required: cluster.keys.threshold,
    complete: false,
    encoded_token: '',
    otp_length: TOKEN_LENGTH,
  };
}

export function startAttempt(cluster: ClusterModel, pgpKey: string | undefined): AttemptView {
  if (cluster.attempt) throw badRequest('an operation token generation attempt is already in progress');
  // The simulator cannot PGP-encrypt; refusing is more honest than returning an unencrypted token.
  if (pgpKey) throw badRequest('pgp_key is not supported by this simulator; use the OTP');
  cluster.attempt = { nonce: randomUUID(), otp: randomBase62(TOKEN_LENGTH), provided: new Set() };
  return { ...attemptView(cluster), otp: cluster.attempt.otp };
}

export function cancelAttempt(cluster: ClusterModel): void {
  delete cluster.attempt;
}

export function provideKeyShare(cluster: ClusterModel, key: string, nonce: string): AttemptView {
  const attempt = cluster.attempt;
  if (!attempt) throw badRequest('no operation token generation attempt is in progress');
  if (nonce !== attempt.nonce) throw badRequest('nonce does not match the attempt in progress');
  const share = normalizeShare(key);
  if (!cluster.keys.shares.includes(share)) throw badRequest('invalid key share');
  if (attempt.provided.has(share)) throw badRequest('this key share was already provided');
  attempt.provided.add(share);
  const view = attemptView(cluster);
  if (attempt.provided.size < cluster.keys.threshold) return view;
  delete cluster.attempt;
  const token = mintOperationToken(cluster);
  return { ...view, started: true, complete: true, encoded_token: encodeOperationToken(token, attempt.otp) };
}

/** Shares are accepted in hex or base64, as operators paste either form. */
function normalizeShare(key: string): string {
  if (/^[0-9a-f]+$/i.test(key)) return key.toLowerCase();
  return Buffer.from(key, 'base64').toString('hex');
}

/** Supplies the next key share the attempt in progress lacks, as a key holder would (admin API). */
export function advanceAttempt(cluster: ClusterModel): AttemptView {
  const attempt = cluster.attempt;
  if (!attempt) throw badRequest('no operation token generation attempt is in progress');
  const share = cluster.keys.shares.find((s) => !attempt.provided.has(s));
  if (share === undefined) throw badRequest('every key share was already provided');
  return withoutOtp(provideKeyShare(cluster, share, attempt.nonce));
}

/** The OTP is returned once, to whoever started the attempt through the API; admin views leave it out. */
export function withoutOtp<T extends { otp?: string }>(view: T): Omit<T, 'otp'> {
  const { otp: _otp, ...rest } = view;
  return rest;
}
