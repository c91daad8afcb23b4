import { describe, expect, it } from 'vitest';
import { ActiveNodeChanges } from '../../../../src/collectors/secrets/cluster-nodes.js';
import { fillTemplate, nodeAddressing, pollable } from '../../../../src/collectors/secrets/node-addresses.js';
import { activeNode, discover, orLast, type DiscoveryInput } from '../../../../src/collectors/secrets/node-discovery.js';
import type { HaView } from '../../../../src/collectors/secrets/ha-status.js';
import { parseConfig } from '../../../../src/config/load.js';
import type { PartOutcome } from '../../../../src/jobs/part.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { decodeAutopilotState, type AutopilotView } from '../../../../src/collectors/secrets/raft-autopilot-answer.js';
import { haStatusResponse, haView } from '../../../../src/collectors/secrets/ha-status.js';
import { healthResponse, nodeRole } from '../../../../src/collectors/secrets/node-health.js';
import { configProblems } from '../../../helpers/failures.js';

const CONFIGURED = 'https://vault.example:8200';
const asIs = nodeAddressing(CONFIGURED, undefined);

const ha = (nodes: Array<Record<string, unknown>>, addressing = asIs): PartOutcome<HaView> => ({
  part: 'ha_status',
  group: new Map(),
  value: haView(haStatusResponse.parse({ Nodes: nodes }).nodes, addressing),
});
const autopilot = (servers: Record<string, Record<string, unknown>>): PartOutcome<AutopilotView> => ({
  part: 'raft_autopilot',
  group: new Map(),
  value: decodeAutopilotState({ body: Buffer.from(JSON.stringify({ data: { servers } })), max: 100 }) ?? undefined,
});
const refused = (status: number): PartOutcome => ({ part: 'x', group: new Map(), notApplicable: true, refusal: new UpstreamError('http_4xx', 'no', status) });
const failed: PartOutcome = { part: 'x', group: new Map(), error: new UpstreamError('connect', 'refused') };
const input = (o: Partial<DiscoveryInput>): DiscoveryInput => ({
  address: `${CONFIGURED}/`,
  addressing: asIs,
  ha: refused(404) as PartOutcome<HaView>,
  autopilot: refused(404) as PartOutcome<AutopilotView>,
  known: new Map(),
  ...o,
});

const NODE = (i: number, extra: Record<string, unknown> = {}) => ({
  hostname: `node${i}`,
  api_address: `http://10.0.0.${i}:8200`,
  cluster_address: `https://10.0.0.${i}:8201`,
  active_node: i === 1,
  ...extra,
});
const SERVER = (i: number) => ({ id: `raft${i}`, name: `node${i}`, address: `10.0.0.${i}:8201`, status: i === 1 ? 'leader' : 'voter' });

describe('which nodes are polled', () => {
  it('the HA status names them by their API address', () => {
    expect(discover(input({ ha: ha([NODE(1), NODE(2), NODE(3)]) }))).toEqual({
      source: 'ha_status',
      reason: '',
      nodes: ['http://10.0.0.1:8200', 'http://10.0.0.2:8200', 'http://10.0.0.3:8200'],
      raftIds: new Map(),
    });
  });

  it('a raft server that stopped echoing stays polled under the name an earlier HA status gave it', () => {
    const known = new Map<string, string>();
    const servers = { raft1: SERVER(1), raft2: SERVER(2), raft3: SERVER(3) };
    discover(input({ ha: ha([NODE(1), NODE(2), NODE(3)]), autopilot: autopilot(servers), known }));
    // node3 died: the active node no longer hears it, autopilot still lists it.
    const now = discover(input({ ha: ha([NODE(1), NODE(2)]), autopilot: autopilot(servers), known }));
    expect(now.nodes).toEqual(['http://10.0.0.1:8200', 'http://10.0.0.2:8200', 'http://10.0.0.3:8200']);
  });

  it('a raft server no HA status ever named: polled where the pairs the HA status makes put its API (same host, 8200 beside 8201)', () => {
    const servers = { raft1: SERVER(1), raft2: SERVER(2), raft3: SERVER(3) };
    const d = discover(input({ ha: ha([NODE(1), NODE(2)]), autopilot: autopilot(servers) }));
    expect(d.nodes).toEqual(['http://10.0.0.1:8200', 'http://10.0.0.2:8200', 'http://10.0.0.3:8200']);
    // A template says where nodes are: nothing is learned.
    const templated = discover(input({ ha: ha([NODE(1), NODE(2)]), autopilot: autopilot(servers), templated: true }));
    expect(templated.nodes[2]).toBe('https://10.0.0.3:8200');
  });

  it('autopilot alone: each server at its host, with the scheme and port of the configured address', () => {
    const d = discover(input({ autopilot: autopilot({ raft1: SERVER(1), raft2: SERVER(2) }) }));
    expect(d).toEqual({
      source: 'autopilot',
      reason: '',
      nodes: ['https://10.0.0.1:8200', 'https://10.0.0.2:8200'],
      // Each polled for the server it is: what names it (node-names.ts).
      raftIds: new Map([
        ['https://10.0.0.1:8200', 'raft1'],
        ['https://10.0.0.2:8200', 'raft2'],
      ]),
    });
  });

  it.each([
    [403, 'forbidden'],
    [404, 'not_found'],
    [405, 'unsupported'],
  ])('neither list readable (%i): the configured address alone, reason %s', (status, reason) => {
    expect(discover(input({ ha: refused(status) as PartOutcome<HaView> }))).toEqual({ source: 'address_only', reason, nodes: [CONFIGURED] });
  });

  it('the HA status unreachable: the configured address alone, reason error', () => {
    expect(discover(input({ ha: failed as PartOutcome<HaView> })).reason).toBe('error');
  });

  it('lists unreadable for an error (an election): the nodes read last, under their source, reason error; a refusal is taken as it is', () => {
    const last = discover(input({ ha: ha([NODE(1), NODE(2)]) }));
    expect(orLast(discover(input({ ha: failed as PartOutcome<HaView> })), last)).toEqual({ source: 'ha_status', reason: 'error', nodes: last.nodes });
    expect(orLast(discover(input({ ha: refused(403) as PartOutcome<HaView> })), last).source).toBe('address_only');
  });

  it('the config lists them: those, whatever the answers say', () => {
    const d = discover(input({ configured: ['https://a:8200/', 'https://b:8200'], ha: ha([NODE(1)]) }));
    expect(d).toEqual({ source: 'configured', reason: '', nodes: ['https://a:8200', 'https://b:8200'] });
  });

  it('an advertised address that is no http(s) URL, or carries credentials, is not dialled', () => {
    const d = discover(input({ ha: ha([NODE(1, { api_address: 'file:///etc/passwd' }), NODE(2, { api_address: 'http://user:pw@10.0.0.2:8200' }), NODE(3)]) }));
    expect(d.nodes).toEqual(['http://10.0.0.3:8200']);
  });

  it('at most 64 nodes, whatever an answer lists', () => {
    const many = Array.from({ length: 100 }, (_, i) => NODE(i + 1, { api_address: `http://10.0.1.${i}:8200` }));
    expect(discover(input({ ha: ha(many) })).nodes).toHaveLength(64);
  });
});

describe('the address template', () => {
  const byHostname = nodeAddressing(CONFIGURED, 'https://{{hostname}}.vault.internal:8200');
  it('fills the hostname the HA status reports', () => {
    expect(discover(input({ ha: ha([NODE(1), NODE(2)], byHostname) })).nodes).toEqual([
      'https://node1.vault.internal:8200',
      'https://node2.vault.internal:8200',
    ]);
  });
  it('fills the host of the advertised address', () => {
    expect(fillTemplate('https://{{ host }}:9200', { address: 'https://10.0.0.7:8201' })).toBe('https://10.0.0.7:9200');
  });
  it('makes no address when a variable it uses is missing or not a host name', () => {
    expect(fillTemplate('https://{{hostname}}:8200', { address: 'https://10.0.0.7:8201' })).toBeUndefined();
    expect(fillTemplate('https://{{hostname}}:8200', { hostname: 'evil.com/path?' })).toBeUndefined();
  });
  it('pollable: http and https only', () => {
    expect(pollable('https://a:8200/')).toBe('https://a:8200');
    expect(pollable('gopher://a')).toBeUndefined();
  });
});

describe('the active node', () => {
  it('is the HA status active node, else the leader address as polled', () => {
    expect(activeNode(ha([NODE(1), NODE(2)]).value, undefined, [])).toBe('http://10.0.0.1:8200');
    expect(activeNode(undefined, { ha_enabled: true, leader_address: 'https://x:8200/', is_self: undefined, leader_cluster_address: undefined }, [])).toBe(
      'https://x:8200',
    );
    expect(activeNode(undefined, { ha_enabled: false, leader_address: undefined, is_self: undefined, leader_cluster_address: undefined }, [])).toBeUndefined();
  });

  it('is the node polled at the configured address when the leader answering there says is_self: the row the node is shown in', () => {
    const leader = {
      ha_enabled: true,
      leader_address: 'https://node-1.internal:8200/',
      is_self: true,
      leader_cluster_address: 'https://node-1.internal:8201/',
    };
    expect(activeNode(undefined, leader, ['https://vault.example:8200'], 'https://vault.example:8200/')).toBe('https://vault.example:8200');
    // A polled node at the leader's address is that node; a leader that is not self names an address.
    expect(activeNode(undefined, leader, ['https://vault.example:8200', 'https://node-1.internal:8200'], 'https://vault.example:8200')).toBe(
      'https://node-1.internal:8200',
    );
    expect(activeNode(undefined, { ...leader, is_self: false }, ['https://vault.example:8200'], 'https://vault.example:8200')).toBe(
      'https://node-1.internal:8200',
    );
  });

  it('changes are counted across polls; the first sighting and a poll that sees none are no change', () => {
    const c = new ActiveNodeChanges();
    expect(c.see('t', 'a')).toBe(0);
    expect(c.see('t', undefined)).toBe(0);
    expect(c.see('t', 'a')).toBe(0);
    expect(c.see('t', 'b')).toBe(1);
    expect(c.see('t', 'a')).toBe(2);
    c.forgetTargetsExcept(new Set());
    expect(c.see('t', 'b')).toBe(0);
  });
});

describe("a node's role", () => {
  const role = (status: number, body: Record<string, unknown>) => nodeRole({ status, body: healthResponse.parse(body) });
  it.each([
    [200, {}, 'active'],
    [429, {}, 'standby'],
    [474, {}, 'standby'],
    [473, {}, 'performance_standby'],
    [472, {}, 'dr_secondary'],
    [530, {}, 'removed'],
    [503, { sealed: true }, undefined],
    [501, { initialized: false }, undefined],
  ])('status %i → %s', (status, body, expected) => {
    expect(role(status, { initialized: true, sealed: false, standby: status !== 200, ...body })).toBe(expected);
  });
  it('a 200 a proxy made of a standby (standbyok) is read from the body', () => {
    expect(role(200, { initialized: true, sealed: false, standby: true, performance_standby: true })).toBe('performance_standby');
    expect(role(200, { initialized: true, sealed: false })).toBeUndefined();
  });
});

describe('the nodes section of a secrets target', () => {
  const ok = 'secrets:\n  - name: a\n    address: https://vault.example:8200\n';
  it('polls the nodes by default, on the target schedule', () => {
    const t = parseConfig(ok, 'v', {}).secrets[0]!;
    expect(t.nodes).toEqual({ enabled: true, max_raft_servers: 100, max_nodes: 64, audit_check: { enabled: true, timeout: 3000, send_token_to: [] } });
  });
  it.each([
    [
      'an unknown variable',
      'nodes: { address_template: "https://{{name}}:8200" }',
      'secrets[0].nodes.address_template: unknown variable {{name}} (use {{hostname}}, {{host}})',
    ],
    ['a template that names no node', 'nodes: { address_template: "https://fixed:8200" }', 'names no node'],
    ['a template that makes no URL', 'nodes: { address_template: "{{hostname}}:8200" }', 'does not make an http or https URL'],
    [
      'both a list and a template',
      'nodes: { addresses: ["https://a:8200"], address_template: "https://{{host}}:8200" }',
      'addresses and address_template exclude each other',
    ],
    ['an address twice', 'nodes: { addresses: ["https://a:8200", "https://a:8200"] }', 'each address at most once'],
    ['a bad address', 'nodes: { addresses: ["a:8200"] }', 'secrets[0].nodes.addresses[0]: invalid URL'],
    ['a bad schedule', 'nodes: { schedule: "often" }', 'secrets[0].nodes.schedule: invalid cron expression "often"'],
    ['an unknown key', 'nodes: { enable: false }', 'secrets[0].nodes.enable: unknown key'],
  ])('refuses %s, naming the key', (_what, line, expected) => {
    expect(configProblems(`${ok}    ${line}\n`).join('\n')).toContain(expected);
  });
});
