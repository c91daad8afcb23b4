import { describe, expect, it } from 'vitest';
import { haNodeFamilies } from '../../../../src/collectors/secrets/cluster-nodes.js';
import { haStatusFamilies, haStatusResponse, haView, type HaNode } from '../../../../src/collectors/secrets/ha-status.js';
import { MAX_ADDRESS_BYTES, MAX_NODES, nodeAddressing, pollable, withoutTrailingSlash } from '../../../../src/collectors/secrets/node-addresses.js';
import { activeNode, discover } from '../../../../src/collectors/secrets/node-discovery.js';
import { linesText } from '../../../../src/metrics/encoded-lines.js';
import { renderGroup } from '../../../../src/metrics/render.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';

/** What one cluster's inflated answers cost: series, label values and work bounded by the nodes polled, not by the answer. */
const CONFIGURED = 'https://vault.example:8200';
const asIs = nodeAddressing(CONFIGURED, undefined);
const LONG = `https://${'a'.repeat(2_000_000)}.example:8200`;

const haNodes = (n: number, active = n - 1): HaNode[] =>
  haStatusResponse.parse({
    nodes: Array.from({ length: n }, (_, i) => ({
      hostname: `node${i}`,
      api_address: `http://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:8200`,
      cluster_address: `https://10.0.0.${i & 255}:8201`,
      active_node: i === active,
      last_echo: i === active ? null : '2024-05-01T10:00:00Z',
      clock_skew_ms: 3,
    })),
  }).nodes;
/** The answer's own series, and the ones the node poll derives from it for each node (named by its address here: no autopilot). */
const textOf = (v: ReturnType<typeof haView>) =>
  [
    ...renderGroup(haStatusFamilies, v, { target: 'c' }).values(),
    ...renderGroup(
      haNodeFamilies,
      { discovery: { source: 'ha_status', reason: '', nodes: [] }, names: new Map(), ha: v, active: undefined, changes: 0 },
      { target: 'c' },
    ).values(),
  ]
    .map(linesText)
    .join('');
const seriesOf = (v: ReturnType<typeof haView>) =>
  textOf(v)
    .split('\n')
    .filter((l) => l && !l.startsWith('#')).length;
const timed = (f: () => void) => {
  const t0 = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t0);
};

describe('an HA status naming 100,000 nodes', () => {
  const v = haView(haNodes(100_000), asIs);

  it('keeps the nodes polled, the active one first, and counts the others', () => {
    expect(v.nodes).toHaveLength(MAX_NODES);
    expect(v.nodes[0]!.active_node).toBe(true);
    expect(v.dropped).toBe(100_000 - MAX_NODES);
  });

  it('exports series for the nodes kept only, and the count of the others', () => {
    // Clock skew for each node kept, the last echo for each but the active one, and the two counts.
    expect(seriesOf(v)).toBe(MAX_NODES + MAX_NODES - 1 + 2);
    expect(textOf(v)).toContain(`secrets_node_series_dropped{target="c"} ${100_000 - MAX_NODES}`);
  });

  it('makes vigil poll at most the nodes kept, the active one among them', () => {
    const d = discover({
      address: CONFIGURED,
      addressing: asIs,
      ha: { part: 'ha', group: new Map(), value: v },
      autopilot: { part: 'ap', group: new Map() },
      known: new Map(),
    });
    expect(d.nodes).toHaveLength(MAX_NODES);
    expect(d.nodes).toContain(v.nodes[0]!.node);
  });

  it('is read in time linear in its nodes, parse included', () => {
    const answer = (n: number) => JSON.stringify({ nodes: haNodes(n) });
    const read = (body: string) => haView(haStatusResponse.parse(JSON.parse(body)).nodes, asIs);
    // The least of three runs, after a warm-up: compilation and collector pauses are noise.
    const least = (body: string) => Math.min(...[1, 2, 3].map(() => timed(() => read(body))));
    const [small, large] = [answer(5_000), answer(50_000)];
    least(small);
    const ratio = least(large) / least(small);
    expect(ratio, `10x the nodes took ${ratio.toFixed(1)}x the time`).toBeLessThan(30);
  });
});

describe('an address too long to be a node', () => {
  it('is not dialled, and is counted', () => {
    const v = haView(
      haStatusResponse.parse({
        nodes: [
          { hostname: 'big', api_address: LONG, active_node: true },
          { hostname: 'n1', api_address: 'http://10.0.0.1:8200' },
        ],
      }).nodes,
      asIs,
    );
    expect(v.nodes.map((n) => n.node)).toEqual([undefined, 'http://10.0.0.1:8200']);
    expect(v.refused).toBe(1);
    // Kept folded: no megabyte stays in the view the node poll keeps between runs.
    expect(Buffer.byteLength(v.nodes[0]!.api_address!)).toBeLessThanOrEqual(MAX_ADDRESS_BYTES);
    expect(pollable(`https://h:8200/${'p'.repeat(MAX_ADDRESS_BYTES)}`)).toBeUndefined();
    expect(pollable(`https://h:8200/${'p'.repeat(100)}`)).toBeDefined();
  });

  it('named by sys/leader, is a label value folded to the bound', () => {
    const active = activeNode(
      undefined,
      { ha_enabled: true, leader_address: `${LONG}${'x'.repeat(2_000_000)}`, is_self: undefined, leader_cluster_address: undefined },
      [],
    );
    expect(Buffer.byteLength(active!)).toBeLessThanOrEqual(MAX_ADDRESS_BYTES);
  });

  it('from autopilot alone (a raft server of a megabyte host) is not dialled either', () => {
    const d = discover({
      address: CONFIGURED,
      addressing: asIs,
      ha: { part: 'ha', group: new Map(), refusal: new UpstreamError('http_4xx', 'no', 403), notApplicable: true },
      autopilot: { part: 'ap', group: new Map(), value: { servers: { big: { id: 'big', name: 'big', address: `${'b'.repeat(1_000_000)}:8201` } } } as never },
      known: new Map(),
    });
    expect(d.source).toBe('address_only');
  });

  it('ending in a megabyte of slashes loses them in linear time', () => {
    const slashes = (n: number) => `https://h:8200${'/'.repeat(n)}x${'/'.repeat(n)}`;
    const [small, large] = [slashes(100_000), slashes(1_000_000)];
    // The least of a few runs: one run of a tenth of a millisecond is mostly noise.
    const least = (s: string) => Math.min(...Array.from({ length: 5 }, () => timed(() => withoutTrailingSlash(s))));
    least(small);
    const ratio = least(large) / least(small);
    expect(withoutTrailingSlash(slashes(3))).toBe('https://h:8200///x');
    expect(ratio).toBeLessThan(30);
  });
});
