import type { PeerCertificate } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { carryCertificate, certificateId } from '../../../src/upstream/tls-observer.js';

const leaf = (fingerprint256: string) => ({ fingerprint256 }) as PeerCertificate;

describe('the label that names a certificate', () => {
  it("is the first 16 hex digits of the leaf's SHA-256 fingerprint, lower case, without colons", () => {
    expect(certificateId(leaf('AB:CD:EF:01:23:45:67:89:AA:BB:CC:DD:EE:FF:00:11:22'))).toBe('abcdef0123456789');
  });
  it('is absent when the handshake showed no certificate (a resumed session shows an empty one)', () => {
    expect(certificateId(undefined)).toBeUndefined();
    expect(certificateId({} as PeerCertificate)).toBeUndefined();
  });
});

describe('an observation of a resumed session', () => {
  const full = { earliestNotAfter: 1_800_000_000, verified: true, certificate: 'abcdef0123456789' };
  it('keeps the expiry and certificate the last full handshake showed, with its own verification', () => {
    expect(carryCertificate({ earliestNotAfter: undefined, verified: false, certificate: undefined }, full)).toEqual({ ...full, verified: false });
  });
  it('is replaced by a full handshake showing another certificate (a rotation)', () => {
    const rotated = { earliestNotAfter: 1_900_000_000, verified: true, certificate: '0123456789abcdef' };
    expect(carryCertificate(rotated, full)).toEqual(rotated);
  });
  it('shows nothing before any full handshake', () => {
    expect(carryCertificate({ earliestNotAfter: undefined, verified: true }, undefined)).toEqual({
      earliestNotAfter: undefined,
      verified: true,
      certificate: undefined,
    });
  });
});
