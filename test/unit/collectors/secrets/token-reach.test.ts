import { describe, expect, it } from 'vitest';
import { hostAllowed, tokenHost, tokenReach } from '../../../../src/collectors/secrets/token-reach.js';
import { nodeBlocked } from '../../../../src/collectors/secrets/requests-blocked.js';
import type { NodeHealth } from '../../../../src/collectors/secrets/node-health.js';

describe('send_token_to entries', () => {
  it('reads hosts, suffixes and CIDRs, and refuses what is none of them', () => {
    expect(tokenHost('vault-1.internal')).toEqual({ kind: 'host', host: 'vault-1.internal' });
    expect(tokenHost('.Vault.Internal')).toEqual({ kind: 'suffix', suffix: '.vault.internal' });
    expect(tokenHost('10.0.0.0/24')).toEqual({ kind: 'cidr', address: '10.0.0.0', bits: 24, family: 'ipv4' });
    expect(tokenHost('fd00::/64')).toEqual({ kind: 'cidr', address: 'fd00::', bits: 64, family: 'ipv6' });
    for (const bad of ['', '.', '.internal', '10.0.0.0/33', '10.0.0/8', 'a b', 'https://vault.internal', '*.vault.internal', 'host/8', 'fd00::/129'])
      expect(tokenHost(bad), bad).toBeUndefined();
  });

  it('matches a host exactly, a suffix at a dot, a CIDR only for an IP literal of its family', () => {
    const allowed = hostAllowed(['vault-1.internal', '.vault.internal', '10.0.0.0/24', 'fd00::/64'].map((e) => tokenHost(e)!));
    for (const yes of ['vault-1.internal', 'VAULT-1.internal', 'a.vault.internal', '10.0.0.7', '[fd00::5]']) expect(allowed(yes), yes).toBe(true);
    for (const no of ['vault-2.internal', 'evilvault.internal', 'vault.internal', '10.0.1.7', '[fd01::5]', '10.0.0.7.evil.example', 'localhost'])
      expect(allowed(no), no).toBe(false);
  });
});

describe('where the token goes', () => {
  const reach = tokenReach({ address: 'https://vault.example:8200/', sendTokenTo: ['.vault.internal'], templated: false });
  it('goes to the configured address and to listed nodes, whatever their host', () => {
    expect(reach('https://vault.example:8200', 'address_only')).toBe(true);
    expect(reach('https://10.9.9.9:8200', 'configured')).toBe(true);
  });
  it('goes to a discovered node only when allowed, and over https when the configured address is https', () => {
    expect(reach('https://n1.vault.internal:8200', 'ha_status')).toBe(true);
    expect(reach('http://n1.vault.internal:8200', 'ha_status')).toBe(false);
    expect(reach('https://attacker.example:8200', 'ha_status')).toBe(false);
    expect(reach('https://attacker.example:8200', 'autopilot')).toBe(false);
    expect(reach('https://n1.vault.internal:8200', undefined)).toBe(true);
    expect(reach('https://attacker.example:8200', undefined)).toBe(false);
  });
  it('goes to every templated node: the operator shaped its address', () => {
    const templated = tokenReach({ address: 'https://vault.example:8200', sendTokenTo: [], templated: true });
    expect(templated('https://node-1.vault.internal:8200', 'ha_status')).toBe(true);
    expect(templated('https://attacker.example:8200', undefined)).toBe(false);
  });
});

describe('a node blocked', () => {
  const health = (status: number, sealed = false) => ({ status, body: { sealed, initialized: true } }) as unknown as NodeHealth;
  it('is one that serves its health while the audited request does not', () => {
    expect(nodeBlocked(health(200), { blocked: true })).toBe(true);
    expect(nodeBlocked(health(473), { blocked: true, status: 500 })).toBe(true);
    expect(nodeBlocked(health(429), { blocked: false, status: 403 })).toBe(false);
  });
  it('cannot be told while sealed, unable to reach its active node, or unanswered', () => {
    expect(nodeBlocked(health(503, true), { blocked: true })).toBeUndefined();
    expect(nodeBlocked(health(474), { blocked: true })).toBeUndefined();
    expect(nodeBlocked(undefined, { blocked: true })).toBeUndefined();
    expect(nodeBlocked(health(200), undefined)).toBeUndefined();
  });
});

describe('the config of the audit check', () => {
  it('names the key and the entry it cannot read', async () => {
    const { parseConfig } = await import('../../../../src/config/load.js');
    const load = (audit: string) => () =>
      parseConfig(`secrets:\n  - { name: a, address: "https://v:8200", nodes: { audit_check: ${audit} } }\n`, 'vigil.yml', {});
    expect(load('{ send_token_to: ["ok.internal", "*.evil"] }')).toThrow('secrets[0].nodes.audit_check.send_token_to[1]: "*.evil" is no host');
    expect(load('{ timeout: 3 }')).toThrow('secrets[0].nodes.audit_check.timeout: 3 has no unit');
    expect(load('{ sends_token_to: [] }')).toThrow(/audit_check.*sends_token_to/);
    expect(load('{ send_token_to: [".vault.internal", "10.0.0.0/8"] }')().secrets[0]?.nodes.audit_check).toEqual({
      enabled: true,
      timeout: 3000,
      send_token_to: ['.vault.internal', '10.0.0.0/8'],
    });
  });
});
