import { describe, expect, it } from 'vitest';
import { buildEstate } from '../../../../src/server/estate.js';
import { renderEstate } from '../../../../src/server/ui/estate-view.js';

/** The problem list has one line per cause: what a cause explains is folded under it and counted once. */

const NOW = Date.parse('2026-11-23T10:00:00Z');

/** A raft cluster of three nodes, n1 active, as /metrics shows it; `n3` says how its third node is. */
const cluster = (n3: 'sealed' | 'dead', tolerance: number, autopilotHealthy: number) => `secrets_replication_up{target="c1",kind="dr"} 1
secrets_sealed{target="c1"} 0
secrets_node_discovery_info{target="c1",source="autopilot",reason=""} 1
secrets_active_node_info{target="c1",node="n1",address="https://n1:8200"} 1
secrets_node_up{target="c1",node="n1",address="https://n1:8200"} 1
secrets_node_up{target="c1",node="n2",address="https://n2:8200"} 1
secrets_node_up{target="c1",node="n3",address="https://n3:8200"} ${n3 === 'dead' ? 0 : 1}
secrets_node_sealed{target="c1",node="n1",address="https://n1:8200"} 0
secrets_node_sealed{target="c1",node="n2",address="https://n2:8200"} 0
${n3 === 'sealed' ? 'secrets_node_sealed{target="c1",node="n3",address="https://n3:8200"} 1' : ''}
secrets_raft_autopilot_healthy{target="c1"} ${autopilotHealthy}
secrets_raft_failure_tolerance{target="c1"} ${tolerance}
secrets_raft_voters{target="c1"} 3
`;

const TOLERANCE = 'raft failure tolerance 0: one more voter lost stops the cluster';
const head = (html: string) => html.slice(0, html.indexOf('</div>'));

describe('a sealed standby of a raft cluster', () => {
  const e = buildEstate(cluster('sealed', 0, 0), [], NOW);

  it('is one problem, with the lost tolerance and unhealthy autopilot under it', () => {
    expect(e.problems).toBe(1);
    expect(e.secrets[0]!.problems).toEqual(['node n3 (https://n3:8200) sealed']);
    expect(e.secrets[0]!.consequences).toEqual([{ cause: 'node n3 (https://n3:8200) sealed', lines: [TOLERANCE, 'raft autopilot unhealthy'] }]);
  });

  it('opens the page with one line, its consequences in a list under it', () => {
    const html = head(renderEstate(e, { now: NOW }));
    expect(html).toContain('<h2 id="problems">1 problem</h2>');
    expect(html).toContain(
      `<li><strong>c1</strong>: node n3 (https://n3:8200) sealed<ul class="consequences"><li>${TOLERANCE}</li><li>raft autopilot unhealthy</li></ul></li>`,
    );
    expect(html.match(/<li><strong>c1<\/strong>/g)).toHaveLength(1);
  });
});

describe('a dead voter of a raft cluster', () => {
  it('is one problem, the node unreachable, with what it costs the quorum under it', () => {
    const e = buildEstate(cluster('dead', 0, 0), [], NOW);
    expect(e.problems).toBe(1);
    expect(e.secrets[0]!.problems).toEqual(['node n3 (https://n3:8200) unreachable']);
    expect(e.secrets[0]!.consequences[0]!.lines).toEqual([TOLERANCE, 'raft autopilot unhealthy']);
  });
});

describe('a consequence whose cause is not there', () => {
  it('stays a problem of its own: tolerance 0 with every node up', () => {
    const e = buildEstate(cluster('sealed', 0, 1).replace('secrets_node_sealed{target="c1",node="n3",address="https://n3:8200"} 1', ''), [], NOW);
    expect(e.problems).toBe(1);
    expect(e.secrets[0]!.problems).toEqual([TOLERANCE]);
    expect(e.secrets[0]!.consequences).toEqual([]);
  });
});

/** Client node counts of pool `web` as agent `target` lists them. */
const pool = (target: string, down: number, region?: string) => `scheduler_agent_up{target="${target}"} 1
${region ? `scheduler_agent_info{target="${target}",name="${target}",region="${region}",datacenter="dc1",version="1.9.0",server="true"} 1` : ''}
scheduler_nodes{target="${target}",datacenter="dc1",node_pool="web",node_class="",status="ready",eligibility="eligible",drain="false"} 5
scheduler_nodes{target="${target}",datacenter="dc1",node_pool="web",node_class="",status="down",eligibility="eligible",drain="false"} ${down}
`;

describe('a pool down that two agents of one region report', () => {
  it('is one problem, the first agent’s, the other named under it', () => {
    const e = buildEstate(pool('a1', 3, 'eu') + pool('a2', 3, 'eu'), [], NOW);
    expect(e.problems).toBe(1);
    expect(e.agents.find((a) => a.target === 'a1')).toMatchObject({
      region: 'eu',
      problems: ['pool web: 3 client nodes down'],
      consequences: [{ cause: 'pool web: 3 client nodes down', lines: ['also reported by agent a2'] }],
    });
    expect(e.agents.find((a) => a.target === 'a2')!.problems).toEqual([]);
    const html = head(renderEstate(e, { now: NOW }));
    expect(html).toContain('<h2 id="problems">1 problem</h2>');
    expect(html).toContain('pool web: 3 client nodes down<ul class="consequences"><li>also reported by agent a2</li></ul>');
  });

  it('is one problem even while the agents count it differently (one has not listed the nodes since)', () => {
    expect(buildEstate(pool('a1', 3, 'eu') + pool('a2', 2, 'eu'), [], NOW).problems).toBe(1);
  });

  it('is two in two regions', () => {
    expect(buildEstate(pool('a1', 3, 'eu') + pool('a2', 3, 'us'), [], NOW).problems).toBe(2);
  });

  it('without a known region, is one problem only where the counts are the same', () => {
    expect(buildEstate(pool('a1', 3) + pool('a2', 3), [], NOW).problems).toBe(1);
    expect(buildEstate(pool('a1', 3) + pool('a2', 2), [], NOW).problems).toBe(2);
  });
});
