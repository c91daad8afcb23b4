import { describe, expect, it } from 'vitest';
import { NodeTally } from '../../../../src/collectors/agent/node-tally.js';
import { nodesFamilies } from '../../../../src/collectors/agent/nodes.js';
import { summarisePage } from '../../../../src/collectors/agent/node-page.js';
import type { AgentNode } from '../../../../src/collectors/agent/nodes.js';
import { linesText } from '../../../../src/metrics/encoded-lines.js';
import { renderGroup } from '../../../../src/metrics/render.js';
import { MAX_LABEL_VALUE } from '../../../../src/support/label-value.js';

const node = (i: number, over: Partial<AgentNode> = {}): AgentNode => ({
  ID: `id-${i}`,
  Name: `client-${i}`,
  Datacenter: 'dc1',
  NodeClass: '',
  NodePool: i % 2 ? 'batch' : 'web',
  Status: 'ready',
  SchedulingEligibility: 'eligible',
  Drain: false,
  Version: '1.7.2',
  ...over,
});

const bounds = (max_nodes: number, max_node_groups = 1_000) => ({ max_nodes, max_node_groups });
/** Nodes in a pool of their own each, one in `lostEvery` down. */
const ownPools = (t: NodeTally, n: number, lostEvery = Infinity) => {
  for (let i = 0; i < n; i++) t.add(node(i, { NodePool: `pool-${i}`, Status: i % lostEvery === lostEvery - 1 ? 'down' : 'ready' }));
};
const timed = (f: () => void) => {
  const t0 = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t0);
};

describe('the node tally', () => {
  it('counts every node by its key, with 0 for each status a pool lacks', () => {
    const t = new NodeTally(bounds(10));
    t.add(node(1));
    t.add(node(3, { Status: 'down' }));
    t.add(node(2));
    const counts = new Map(t.listing(1).counts.map(({ key, count }) => [`${key.node_pool}/${key.status}`, count]));
    expect(Object.fromEntries(counts)).toEqual({
      'batch/ready': 1,
      'batch/down': 1,
      'batch/initializing': 0,
      'batch/disconnected': 0,
      'web/ready': 1,
      'web/down': 0,
      'web/initializing': 0,
      'web/disconnected': 0,
    });
  });

  it('keeps series only for nodes not ready or draining, at most max_nodes, lost ones first, and counts the rest', () => {
    const t = new NodeTally(bounds(2));
    t.add(node(1, { Status: 'initializing' }));
    t.add(node(2, { Drain: true }));
    t.add(node(3, { Status: 'disconnected' }));
    t.add(node(4, { Status: 'down' }));
    for (let i = 5; i < 1000; i++) t.add(node(i));
    const l = t.listing(2);
    expect(l.watched.map((n) => `${n.node}:${n.status}`)).toEqual(['client-3:disconnected', 'client-4:down']);
    expect(l.dropped).toBe(2);
  });

  it('holds a fleet of 10,000 nodes in its distinct keys, not in a list of nodes', () => {
    const t = new NodeTally(bounds(100));
    for (let i = 0; i < 10_000; i++) t.add(node(i, { Datacenter: `dc${i % 3}`, Status: i % 50 === 0 ? 'down' : 'ready' }));
    const l = t.listing(20);
    expect(l.counts).toHaveLength(3 * 2 * 4);
    expect(l.watched).toHaveLength(100);
    expect(l.dropped).toBe(200 - 100);
  });

  it('renders counts, lost nodes and drains with their labels escaped', () => {
    const t = new NodeTally(bounds(10));
    t.add(node(1, { Status: 'down', Name: 'evil"\nnode', NodePool: undefined }));
    t.add(node(2, { Drain: true }));
    const text = [...renderGroup(nodesFamilies, t.listing(1), { target: 'a' }).values()].map(linesText).join('');
    expect(text).toContain(
      'scheduler_node_status{target="a",node="evil\\"\\nnode",node_id="id-1",datacenter="dc1",node_pool="",node_class="",status="down",eligibility="eligible"} 1',
    );
    expect(text).toContain('scheduler_node_draining{target="a",node="client-2",node_id="id-2",datacenter="dc1",node_pool="web",node_class=""} 1');
    expect(text).not.toMatch(/scheduler_node_status\{[^}]*node="client-2"/);
    expect(text).toContain('scheduler_nodes{target="a",datacenter="dc1",node_pool="",node_class="",status="down",eligibility="eligible",drain="false"} 1');
    expect(text).toContain('scheduler_node_series_dropped{target="a"} 0');
  });

  it('keeps at most max_node_groups combinations of 100,000 nodes in pools of their own, and counts the nodes of the others', () => {
    const t = new NodeTally(bounds(1_000, 1_000));
    ownPools(t, 100_000);
    const l = t.listing(200);
    // Four statuses for each combination kept, not 100,000 x 4.
    expect(l.counts).toHaveLength(4 * 1_000);
    expect(l.groupsDropped).toBe(99_000);
    expect(l.counts.reduce((n, c) => n + c.count, 0) + l.groupsDropped).toBe(100_000);
  });

  it('keeps the combinations with a node down or disconnected past the bound, giving up those without', () => {
    const t = new NodeTally(bounds(1_000, 10));
    ownPools(t, 1_000, 100);
    const lost = t.listing(1).counts.filter((c) => c.count > 0);
    expect(lost.map((c) => `${c.key.node_pool}/${c.key.status}`)).toEqual(Array.from({ length: 10 }, (_, i) => `pool-${i * 100 + 99}/down`));
    expect(t.listing(1).groupsDropped).toBe(990);
  });

  it('counts a status none of the four as one series of its own, within the bound', () => {
    const t = new NodeTally(bounds(10, 3));
    for (let i = 0; i < 50; i++) t.add(node(i, { Status: `odd-${i}` }));
    const l = t.listing(1);
    expect(l.counts.map((c) => c.key.status)).toEqual(['odd-0', 'odd-1', 'odd-2']);
    expect(l.groupsDropped).toBe(47);
  });

  it('folds a megabyte label of a node to a bounded value, two such values staying two', () => {
    const t = new NodeTally(bounds(10));
    const long = 'p'.repeat(2_000_000);
    t.add(node(1, { NodePool: `${long}a`, Status: 'down', Name: long, ID: long }));
    t.add(node(2, { NodePool: `${long}b` }));
    const l = t.listing(1);
    const pools = new Set(l.counts.map((c) => c.key.node_pool));
    expect(pools.size).toBe(2);
    for (const p of pools) expect(p.length).toBeLessThanOrEqual(MAX_LABEL_VALUE);
    expect(l.watched[0]!.node.length).toBeLessThanOrEqual(MAX_LABEL_VALUE);
    expect(l.watched[0]!.node_id.length).toBeLessThanOrEqual(MAX_LABEL_VALUE);
  });

  it('takes each node in constant time however many pools are kept or given up', () => {
    // The least of five runs, after a warm-up: compilation and collector pauses are noise. Nodes are made as they
    // are counted, as a listing's pages bring them: a fleet built beforehand measures the cache, not the tally.
    const run = (n: number) => Math.min(...[1, 2, 3, 4, 5].map(() => timed(() => ownPools(new NodeTally(bounds(1_000, 1_000)), n, 7))));
    run(10_000);
    const ratio = run(100_000) / run(10_000);
    // And none of it scans the combinations kept: 100 times as many cost about the same.
    const kept = (max: number) => Math.min(...[1, 2, 3].map(() => timed(() => ownPools(new NodeTally(bounds(1_000, max)), 50_000, 7))));
    kept(100);
    const perKept = kept(10_000) / kept(100);
    expect(perKept, `100x the combinations kept took ${perKept.toFixed(1)}x the time`).toBeLessThan(10);
    expect(ratio, `10x the nodes took ${ratio.toFixed(1)}x the time`).toBeLessThan(30);
  });

  it('counts a page kept as runs of one combination exactly as it counts its nodes one at a time, past both bounds', () => {
    // Pools that repeat in runs and interleave, nodes down among them, more combinations than kept and more nodes to watch than max_nodes.
    const fleet = Array.from({ length: 3_000 }, (_, i) =>
      node(i, { NodePool: `pool-${Math.floor(i / 7) % 40}`, Status: i % 37 === 0 ? 'down' : i % 53 === 0 ? 'initializing' : 'ready', Drain: i % 41 === 0 }),
    );
    const oneByOne = new NodeTally(bounds(25, 12));
    for (const n of fleet) oneByOne.add(n);
    const byPage = new NodeTally(bounds(25, 12));
    for (let p = 0; p < fleet.length; p += 500) byPage.addPage(summarisePage(fleet.slice(p, p + 500)));
    const page = summarisePage(fleet.slice(0, 500));
    expect(page.keys.length).toBeLessThan(page.runs.length / 2);
    expect(byPage.listing(6)).toEqual(oneByOne.listing(6));
    expect(byPage.listing(6).groupsDropped).toBeGreaterThan(0);
    expect(byPage.listing(6).dropped).toBeGreaterThan(0);
  });

  it('renders the nodes left out of the counts', () => {
    const t = new NodeTally(bounds(10, 1));
    ownPools(t, 3);
    const text = [...renderGroup(nodesFamilies, t.listing(1), { target: 'a' }).values()].map(linesText).join('');
    expect(text).toContain('scheduler_node_group_series_dropped{target="a"} 2');
  });
});
