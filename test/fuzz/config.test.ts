import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError } from '../../src/config-fields/errors.js';
import { parseConfig } from '../../src/config/load.js';
import { parseWebConfig } from '../../src/server/web-config.js';
import { tempFile } from '../helpers/daemon.js';
import { around, SETTINGS } from './arbitraries.js';

/** The config and web config parsers: any text gives a config or a ConfigError naming the problem, never another error. */
const token = tempFile('token', 'fuzz-token-value\n');
const validConfig = {
  web: { listen_address: '127.0.0.1:9810' },
  secrets: [{ name: 'a', address: 'http://127.0.0.1:8200', token_file: token, replication_kinds: ['dr'], merkle_check: { dr_operation_token_file: token } }],
  agents: [{ name: 'b', address: 'http://127.0.0.1:4646', token_file: token, host: true, max_members: 10 }],
  teams: [{ name: 'c', address: 'http://127.0.0.1:8300', token_file: token, organization: 'org', page_size: 50 }],
  alert_sink: { bearer_token_file: token, store: { path: ':memory:', retention: '7d' }, body_limit: '1MiB', watchdog: { max_silence: '5m' } },
};
const validWeb = {
  tls_server_config: {
    cert_file: 'c.pem',
    key_file: 'k.pem',
    client_auth_type: 'RequireAndVerifyClientCert',
    client_ca_file: 'ca.pem',
    min_version: 'TLS12',
    cipher_suites: ['TLS_AES_128_GCM_SHA256'],
    curve_preferences: ['X25519'],
  },
  http_server_config: { headers: { 'X-Frame-Options': 'deny' } },
  basic_auth_users: { u: '$2y$10$0/VqmfyHlhe3lzMUbZHZlupg/6TB2UPInTgbfu4LQKaRJlbAE9EeO' },
};

const text = (doc: fc.Arbitrary<unknown>) =>
  fc.oneof(
    doc.map((d) => (d === undefined ? '' : stringify(d))),
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 200 }),
  );

/** Runs a parser; only ConfigError (with non-empty, one-line problems) may come out of it. */
function onlyConfigErrors(parse: () => unknown): void {
  try {
    parse();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    expect(e.problems.length).toBeGreaterThan(0);
    for (const p of e.problems) expect(p).not.toContain('fuzz-token-value');
  }
}

describe('config parser under random and mutated input', () => {
  it('the valid base configs parse', () => {
    expect(() => parseConfig(stringify(validConfig), 'fuzz.yml', {})).not.toThrow();
    expect(() => parseWebConfig(stringify(validWeb), 'web.yml', '/')).not.toThrow();
  });

  it.each(['*!', 'secrets: *list\n'])('an alias to no anchor (%j, found by a long run) is a ConfigError', (t) => {
    expect(() => parseConfig(t, 'fuzz.yml', {})).toThrow(ConfigError);
    expect(() => parseWebConfig(t, 'web.yml', '/')).toThrow(ConfigError);
  });

  it('vigil.yml: a config or a ConfigError, nothing else', () => {
    fc.assert(
      fc.property(text(around(validConfig)), (t) => onlyConfigErrors(() => parseConfig(t, 'fuzz.yml', {}))),
      SETTINGS,
    );
  });

  it('web config: a config or a ConfigError, nothing else', () => {
    fc.assert(
      fc.property(text(around(validWeb)), (t) => onlyConfigErrors(() => parseWebConfig(t, 'web.yml', '/'))),
      SETTINGS,
    );
  });
});
