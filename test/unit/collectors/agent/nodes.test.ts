import { describe, expect, it } from 'vitest';
import { NodeTally } from '../../../../src/collectors/agent/node-tally.js';
import { nodesFamilies } from '../../../../src/collectors/agent/nodes.js';
import type { AgentNode } from '../../../../src/collectors/agent/nodes.js';
import { linesText } from '../../../../src/metrics/encoded-lines.js';
import { renderGroup } from '../../../../src/metrics/render.js';

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

describe('the node tally', () => {
  it('counts every node by its key, with 0 for each status a pool lacks', () => {
    const t = new NodeTally(10);
    t.add(node(1));
    t.add(node(3, { Status: 'down' }));
    t.add(node(2));
    const counts = new Map([...t.listing(1).counts.values()].map(({ key, count }) => [`${key.node_pool}/${key.status}`, count]));
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
    const t = new NodeTally(2);
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
    const t = new NodeTally(100);
    for (let i = 0; i < 10_000; i++) t.add(node(i, { Datacenter: `dc${i % 3}`, Status: i % 50 === 0 ? 'down' : 'ready' }));
    const l = t.listing(20);
    expect(l.counts.size).toBe(3 * 2 * 4);
    expect(l.watched).toHaveLength(100);
    expect(l.dropped).toBe(200 - 100);
  });

  it('renders counts, lost nodes and drains with their labels escaped', () => {
    const t = new NodeTally(10);
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
});
