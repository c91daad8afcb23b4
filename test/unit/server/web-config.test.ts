import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config-fields/errors.js';
import { parseWebConfig } from '../../../src/server/web-config.js';
import { thrown } from '../../helpers/throws.js';

const HASH = '$2y$10$0/VqmfyHlhe3lzMUbZHZlupg/6TB2UPInTgbfu4LQKaRJlbAE9EeO';
const parse = (text: string) => parseWebConfig(text, 'web.yml', '/etc/vigil');
const problems = (text: string): string[] => thrown(ConfigError, () => parse(text)).problems;

describe('web config (exporter-toolkit format)', () => {
  it('reads a node_exporter-style file unchanged, relative paths taken from its directory', () => {
    const c = parseWebConfig(readFileSync(new URL('../../fixtures/web/node-exporter-style.yml', import.meta.url), 'utf8'), 'web.yml', '/etc/vigil');
    expect(c.tls).toEqual({
      certFile: '/etc/vigil/server.pem',
      keyFile: '/etc/vigil/server.key',
      clientCaFile: '/etc/vigil/clients-ca.pem',
      clientAuth: 'RequireAndVerifyClientCert',
      clientAllowedSans: ['prometheus.example.org'],
      ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384',
      ecdhCurve: 'X25519:P-256',
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.3',
      honorCipherOrder: true,
    });
    expect(c.headers).toEqual({
      'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'deny',
    });
    expect([...c.users.keys()]).toEqual(['prometheus']);
  });

  it("the shipped web-config.example.yml parses, and its user's password is the documented one", async () => {
    const bcrypt = (await import('bcryptjs')).default;
    const c = parseWebConfig(readFileSync(new URL('../../../web-config.example.yml', import.meta.url), 'utf8'), 'web-config.example.yml', '/etc/vigil');
    expect(c.tls).toMatchObject({ certFile: '/etc/vigil/tls/server.pem', clientAuth: 'RequireAndVerifyClientCert' });
    expect(bcrypt.compareSync('change-me', c.users.get('prometheus')!)).toBe(true);
  });

  it('an empty file means no TLS, no auth, no headers', () => {
    expect(parse('')).toEqual({ headers: {}, users: new Map() });
  });

  it('defaults to TLS 1.2 through 1.3 and no client certificate', () => {
    expect(parse('tls_server_config: { cert_file: a.pem, key_file: a.key }\n').tls).toMatchObject({
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.3',
      clientAuth: 'NoClientCert',
    });
  });

  it.each([
    ['an unknown top-level key', 'tls_config: {}\n', 'web.yml: tls_config: unknown key'],
    ['an unknown TLS key (a typo)', 'tls_server_config: { cert_file: a, key_file: b, min_verison: TLS12 }\n', 'tls_server_config.min_verison: unknown key'],
    ['a missing key file', 'tls_server_config: { cert_file: a }\n', 'tls_server_config.key_file: required (or key)'],
    [
      'an unknown cipher suite',
      'tls_server_config: { cert_file: a, key_file: b, cipher_suites: [TLS_RSA_WITH_RC4_128_SHA] }\n',
      'tls_server_config.cipher_suites[0]: unknown cipher suite "TLS_RSA_WITH_RC4_128_SHA"',
    ],
    [
      'an unknown curve',
      'tls_server_config: { cert_file: a, key_file: b, curve_preferences: [CurveP999] }\n',
      'tls_server_config.curve_preferences[0]: unknown curve "CurveP999"',
    ],
    ['an unknown TLS version', 'tls_server_config: { cert_file: a, key_file: b, min_version: SSL3 }\n', 'tls_server_config.min_version:'],
    [
      'min above max',
      'tls_server_config: { cert_file: a, key_file: b, min_version: TLS13, max_version: TLS12 }\n',
      'tls_server_config.max_version: TLS12 is below min_version TLS13',
    ],
    ['an unknown client auth type', 'tls_server_config: { cert_file: a, key_file: b, client_auth_type: Maybe }\n', 'tls_server_config.client_auth_type:'],
    [
      'a client CA without a client auth type',
      'tls_server_config: { cert_file: a, key_file: b, client_ca_file: ca.pem }\n',
      'tls_server_config.client_ca_file: set, but client_auth_type is NoClientCert',
    ],
    [
      'verification without a client CA',
      'tls_server_config: { cert_file: a, key_file: b, client_auth_type: RequireAndVerifyClientCert }\n',
      'tls_server_config.client_ca_file: required with client_auth_type RequireAndVerifyClientCert',
    ],
    [
      'allowed SANs with optional certificates',
      'tls_server_config: { cert_file: a, key_file: b, client_auth_type: RequestClientCert, client_allowed_sans: [x] }\n',
      'tls_server_config.client_allowed_sans: needs client_auth_type',
    ],
    ['a header that cannot be set', 'http_server_config: { headers: { Set-Cookie: a=b } }\n', 'http_server_config.headers.Set-Cookie: can not be configured'],
    [
      'a header value outside its set',
      'http_server_config: { headers: { X-Frame-Options: allow } }\n',
      'http_server_config.headers.X-Frame-Options: must be one of deny, sameorigin',
    ],
    ['a plain-text password', 'basic_auth_users: { alice: hunter2-plain }\n', 'basic_auth_users.alice: is not a bcrypt hash'],
    ['a user name with a colon', `basic_auth_users: { "a:b": "${HASH}" }\n`, 'basic_auth_users.a:b:'],
    ['a rate_limit interval that is no duration', 'rate_limit: { burst: 5, interval: fast }\n', 'rate_limit.interval: must be a duration'],
    ['a rate_limit without a burst', 'rate_limit: { interval: 1s }\n', 'rate_limit.burst: must be at least 1'],
    ['an unknown rate_limit key', 'rate_limit: { interval: 1s, burst: 1, per_client: true }\n', 'rate_limit'],
    ['a list at the top', '- a\n', 'web.yml: the top level must be a mapping'],
    ['broken YAML', 'tls_server_config: [\n', 'web.yml: YAML:'],
    ['an alias to no anchor', 'basic_auth_users: *users\n', 'web.yml: YAML: Unresolved alias'],
  ])('rejects %s, naming the key', (_what, text, message) => {
    expect(problems(text).join('\n')).toContain(message);
  });

  it('never echoes a password given where a hash belongs', () => {
    expect(problems('basic_auth_users: { alice: hunter2-plain }\n').join('\n')).not.toContain('hunter2');
  });
});
