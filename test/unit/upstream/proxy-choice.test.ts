import { describe, expect, it } from 'vitest';
import { proxyFor } from '../../../src/upstream/proxy-choice.js';

/** Which proxy a target's requests go through, from its keys or vigil's environment. */
const choose = (address: string, keys: { proxy_url?: string; no_proxy?: string; proxy_from_environment?: boolean }, env: NodeJS.ProcessEnv = {}) =>
  proxyFor(new URL(address), { proxy_from_environment: false, ...keys }, env)?.href;

describe('proxy_url and no_proxy', () => {
  const proxy = 'http://proxy.example:3128/';
  it.each([
    ['https://a.example.com:8200', 'example.com', undefined],
    ['https://example.com:8200', 'example.com', undefined],
    ['https://example.com:8200', '.example.com', proxy],
    ['https://a.example.com:8200', '*.example.com', undefined],
    ['https://notexample.com:8200', 'example.com', proxy],
    ['http://10.1.2.3:4646', '10.0.0.0/8', undefined],
    ['http://11.1.2.3:4646', '10.0.0.0/8', proxy],
    ['http://10.1.2.3:4646', '10.1.2.3:4646', undefined],
    ['http://10.1.2.3:4647', '10.1.2.3:4646', proxy],
    ['http://[::1]:4646', '::1', undefined],
    ['https://any.where:443', '*', undefined],
    ['https://any.where', 'any.where:443', undefined],
  ])('%s with no_proxy %s goes through %s', (address, noProxy, expected) => {
    expect(choose(address, { proxy_url: proxy, no_proxy: noProxy })).toBe(expected);
  });
});

describe('proxy_from_environment', () => {
  it('takes HTTPS_PROXY for https targets and HTTP_PROXY for http ones, upper case first', () => {
    const env = { HTTPS_PROXY: 'http://s.example:1', HTTP_PROXY: 'h.example:2', http_proxy: 'http://lower.example:3' };
    expect(choose('https://t.example', { proxy_from_environment: true }, env)).toBe('http://s.example:1/');
    expect(choose('http://t.example', { proxy_from_environment: true }, env)).toBe('http://h.example:2/');
  });

  it('goes directly when NO_PROXY names the target or no proxy is set', () => {
    expect(choose('https://t.example', { proxy_from_environment: true }, { HTTPS_PROXY: 'http://s.example:1', NO_PROXY: 't.example' })).toBeUndefined();
    expect(choose('https://t.example', { proxy_from_environment: true }, {})).toBeUndefined();
    expect(choose('https://t.example', {}, { HTTPS_PROXY: 'http://s.example:1' })).toBeUndefined();
  });

  it('names the variable of a proxy it cannot use, without its password', () => {
    expect(() => choose('https://t.example', { proxy_from_environment: true }, { HTTPS_PROXY: 'socks5://u:pw@s.example:1' })).toThrow(
      'HTTPS_PROXY: socks5://u:xxxxx@s.example:1: scheme must be http or https',
    );
  });
});
