import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { makeCa, makeCert, removeCas } from '../../helpers/certs.js';
import { configProblems } from '../../helpers/failures.js';

/** The client certificate and proxy keys of every target kind, checked at load with errors that name the key. */
const ca = makeCa('client-keys');
const pair = makeCert(ca, 'vigil', 'client');
const other = makeCert(ca, 'other', 'client');
const junk = join(ca.dir, 'junk.pem');
writeFileSync(junk, 'not a certificate\n');
afterAll(() => removeCas(ca));

const target = (kind: 'secrets' | 'agents' | 'teams', extra: string) =>
  `${kind}:\n  - name: a\n    address: https://upstream.example:8200\n${kind === 'teams' ? `    organization: o\n    token_file: ${ca.cert}\n` : ''}${extra}`;

describe('target tls: client certificate, server name, minimum version', () => {
  it.each(['secrets', 'agents', 'teams'] as const)('reads every key for %s targets', (kind) => {
    const c = parseConfig(
      target(kind, `    tls: { cert_file: ${pair.cert}, key_file: ${pair.key}, server_name: upstream.internal, min_version: TLS13 }\n`),
      'vigil.yml',
      {},
    );
    expect(c[kind][0]!.tls).toEqual({
      cert_file: pair.cert,
      key_file: pair.key,
      server_name: 'upstream.internal',
      min_version: 'TLSv1.3',
      insecure_skip_verify: false,
    });
  });

  it.each([
    [
      'a key without its certificate',
      `tls: { key_file: ${pair.key} }`,
      ['secrets[0].tls.cert_file: required with key_file (a client key without its certificate)'],
    ],
    [
      'a certificate without its key',
      `tls: { cert_file: ${pair.cert} }`,
      ['secrets[0].tls.key_file: required with cert_file (a client certificate without its key)'],
    ],
    [
      'an unreadable key file',
      `tls: { cert_file: ${pair.cert}, key_file: /nonexistent/vigil.key }`,
      ['secrets[0].tls.key_file: cannot read file "/nonexistent/vigil.key" (ENOENT)'],
    ],
    [
      "a key that is not the certificate's",
      `tls: { cert_file: ${pair.cert}, key_file: ${other.key} }`,
      ['secrets[0].tls.key_file: is not the private key of tls.cert_file (they do not match)'],
    ],
    ['a certificate file that holds no certificate', `tls: { cert_file: ${junk}, key_file: ${pair.key} }`, ['secrets[0].tls.cert_file: not a PEM certificate']],
    [
      'a certificate where the key belongs',
      `tls: { cert_file: ${pair.cert}, key_file: ${pair.cert} }`,
      ['secrets[0].tls.key_file: not an unencrypted PEM private key'],
    ],
    [
      'a TLS version vigil cannot require',
      'tls: { min_version: TLS11 }',
      ['secrets[0].tls.min_version: "TLS11" is not a TLS version vigil can require: use TLS12 or TLS13'],
    ],
  ])('refuses %s, naming the key', (_what, tls, expected) => {
    expect(configProblems(target('secrets', `    ${tls}\n`))).toEqual(expected);
  });

  it('never shows a byte of the key in an error', () => {
    const problems = configProblems(target('secrets', `    tls: { cert_file: ${pair.key}, key_file: ${pair.key} }\n`)).join('\n');
    expect(problems).toContain('tls.cert_file');
    expect(problems).not.toMatch(/BEGIN|PRIVATE/);
  });
});

describe('target proxy: proxy_url, no_proxy, proxy_from_environment', () => {
  it.each(['secrets', 'agents', 'teams'] as const)('reads every key for %s targets', (kind) => {
    const c = parseConfig(
      target(kind, '    proxy_url: http://vigil:s3cret@proxy.example:3128\n    no_proxy: "localhost,.internal,10.0.0.0/8"\n'),
      'vigil.yml',
      {},
    );
    expect(c[kind][0]).toMatchObject({
      proxy_url: 'http://vigil:s3cret@proxy.example:3128',
      no_proxy: 'localhost,.internal,10.0.0.0/8',
      proxy_from_environment: false,
    });
  });

  it('defaults to no proxy', () => {
    const t = parseConfig(target('agents', ''), 'vigil.yml', {}).agents[0]!;
    expect([t.proxy_url, t.no_proxy, t.proxy_from_environment]).toEqual([undefined, undefined, false]);
  });

  it.each([
    [
      'a proxy scheme vigil does not speak',
      'proxy_url: socks5://proxy.example:1080',
      ['agents[0].proxy_url: scheme "socks5" is not supported: use http or https'],
    ],
    ['a proxy URL that is no URL', 'proxy_url: "http://[proxy"', ['agents[0].proxy_url: not a URL (expected e.g. http://proxy.example:3128)']],
    [
      'a proxy URL with a path',
      'proxy_url: http://u:pw@proxy.example:3128/x',
      ['agents[0].proxy_url: http://u:xxxxx@proxy.example:3128/x: a proxy URL has no path, query or fragment'],
    ],
    ['no_proxy without proxy_url', 'no_proxy: localhost', ['agents[0].no_proxy: set without proxy_url']],
    [
      'no_proxy with proxy_from_environment',
      'no_proxy: localhost\n    proxy_from_environment: true',
      ['agents[0].no_proxy: used only with proxy_url (with proxy_from_environment, NO_PROXY says it)'],
    ],
    [
      'proxy_url with proxy_from_environment',
      'proxy_url: http://proxy.example:3128\n    proxy_from_environment: true',
      ['agents[0].proxy_from_environment: set together with proxy_url: choose one'],
    ],
    [
      'a no_proxy entry that is no host',
      'proxy_url: http://proxy.example:3128\n    no_proxy: "a b"',
      ['agents[0].no_proxy: "a b" is not a host, domain, IP address or CIDR range'],
    ],
    [
      'a CIDR range past its family',
      'proxy_url: http://proxy.example:3128\n    no_proxy: 10.0.0.0/33',
      ['agents[0].no_proxy: "10.0.0.0/33" is not a host, domain, IP address or CIDR range'],
    ],
  ])('refuses %s, naming the key', (_what, keys, expected) => {
    expect(configProblems(target('agents', `    ${keys}\n`))).toEqual(expected);
  });

  it('never echoes a proxy password in an error', () => {
    const problems = configProblems(target('agents', '    proxy_url: ftp://vigil:s3cret@proxy.example:21\n')).join('\n');
    expect(problems).toContain('agents[0].proxy_url');
    expect(problems).not.toContain('s3cret');
  });
});
