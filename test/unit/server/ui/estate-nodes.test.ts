import { describe, expect, it } from 'vitest';
import { buildEstate } from '../../../../src/server/estate.js';
import { renderEstate } from '../../../../src/server/ui/estate-view.js';

/** A secrets cluster's nodes on the estate page: each node's health, role, seal and version, and the raft quorum. */

const NOW = Date.parse('2026-11-23T10:00:00Z');
const EVIL = '<img src=x onerror=alert(1)>';

const SNAPSHOT = `secrets_replication_up{target="c1",kind="dr"} 1
secrets_sealed{target="c1"} 0
secrets_nodes_discovered{target="c1"} 3
secrets_node_discovery_info{target="c1",source="ha_status",reason=""} 1
secrets_active_node_info{target="c1",node="vault-1",address="https://n1:8200"} 1
secrets_node_up{target="c1",node="vault-1",address="https://n1:8200"} 1
secrets_node_up{target="c1",node="vault-2",address="https://n2:8200"} 1
secrets_node_up{target="c1",node="https://${EVIL}",address="https://${EVIL}"} 0
secrets_node_sealed{target="c1",node="vault-1",address="https://n1:8200"} 0
secrets_node_sealed{target="c1",node="vault-2",address="https://n2:8200"} 1
secrets_node_initialized{target="c1",node="vault-1",address="https://n1:8200"} 1
secrets_node_initialized{target="c1",node="vault-2",address="https://n2:8200"} 1
secrets_node_role{target="c1",node="vault-1",address="https://n1:8200",role="active"} 1
secrets_node_role{target="c1",node="vault-1",address="https://n1:8200",role="standby"} 0
secrets_node_role{target="c1",node="vault-2",address="https://n2:8200",role="active"} 0
secrets_node_info{target="c1",node="vault-1",address="https://n1:8200",version="1.17.2${EVIL}",cluster_name="c"} 1
secrets_raft_autopilot_healthy{target="c1"} 0
secrets_raft_failure_tolerance{target="c1"} 0
secrets_raft_optimistic_failure_tolerance{target="c1"} 1
secrets_raft_voters{target="c1"} 3
secrets_replication_up{target="plain",kind="dr"} 1
secrets_sealed{target="plain"} 0
secrets_replication_up{target="sealed",kind="dr"} 0
secrets_sealed{target="sealed"} 1
secrets_node_up{target="sealed",node="vault-s1",address="https://s1:8200"} 1
secrets_node_sealed{target="sealed",node="vault-s1",address="https://s1:8200"} 1
`;

describe('the nodes of a secrets cluster', () => {
  const e = buildEstate(SNAPSHOT, [], NOW);
  const c1 = e.secrets.find((c) => c.target === 'c1')!;

  it('reads each node, the active node and the raft quorum', () => {
    expect(c1.nodes).toEqual({
      source: 'ha_status',
      reason: null,
      activeNode: { name: 'vault-1', address: 'https://n1:8200' },
      nodes: [
        { name: `https://${EVIL}`, address: `https://${EVIL}`, up: false, role: null, sealed: null, initialized: null, version: null, requestsBlocked: null },
        {
          name: 'vault-1',
          address: 'https://n1:8200',
          up: true,
          role: 'active',
          sealed: false,
          initialized: true,
          version: `1.17.2${EVIL}`,
          requestsBlocked: null,
        },
        { name: 'vault-2', address: 'https://n2:8200', up: true, role: null, sealed: true, initialized: true, version: null, requestsBlocked: null },
      ],
      raft: { healthy: false, failureTolerance: 0, optimisticFailureTolerance: 1, voters: 3 },
    });
    expect(e.secrets.find((c) => c.target === 'plain')!.nodes).toBeNull();
  });

  it('names a sealed standby and an unreachable node as problems, the lost tolerance and unhealthy autopilot under the first', () => {
    expect(c1.problems).toEqual(['node vault-2 (https://n2:8200) sealed', `node https://${EVIL} unreachable`]);
    expect(c1.consequences).toEqual([
      {
        cause: 'node vault-2 (https://n2:8200) sealed',
        lines: ['raft failure tolerance 0: one more voter lost stops the cluster', 'raft autopilot unhealthy'],
      },
    ]);
    // A sealed cluster's sealed node is the one problem its card already names.
    expect(e.secrets.find((c) => c.target === 'sealed')!.problems).toEqual(['sealed (so its dr replication status cannot be read)']);
  });

  it('renders a row per node and the quorum on the card, every upstream string as text', () => {
    const html = renderEstate(e, { now: NOW });
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).toContain(
      '<tr class=""><th scope="row">c1</th><td><code>vault-1</code> <span class="muted"><span class="addr">https://<wbr>n1:8200</span></span> <span class="muted">(active)</span></td><td><span class="badge ok">up</span></td><td>active</td><td><span class="badge ok">unsealed</span></td><td>1.17.2&#60;img',
    );
    expect(html).toContain(
      '<tr class="row-bad"><th scope="row">c1</th><td><code>vault-2</code> <span class="muted"><span class="addr">https://<wbr>n2:8200</span></span></td><td><span class="badge ok">up</span></td><td><span class="muted">—</span></td><td><span class="badge bad">sealed</span></td>',
    );
    expect(html).toContain('<span class="badge bad">unreachable</span>');
    // The card names the active node as its row does: by name, its address beside it.
    expect(html).toContain(
      'active node <code>vault-1</code> <span class="muted"><span class="addr">https://<wbr>n1:8200</span></span> · 3 voters · <span class="badge bad">failure tolerance 0</span>',
    );
    expect(html).toContain('<span class="badge bad">autopilot unhealthy</span>');
  });
});

describe('a cluster whose audit devices block it', () => {
  const snapshot = `
secrets_replication_up{target="blk",kind="dr"} 0
secrets_node_up{target="blk",node="n1",address="https://b1:8200"} 1
secrets_node_up{target="blk",node="n2",address="https://b2:8200"} 1
secrets_node_sealed{target="blk",node="n1",address="https://b1:8200"} 0
secrets_node_sealed{target="blk",node="n2",address="https://b2:8200"} 0
secrets_node_requests_blocked{target="blk",node="n1",address="https://b1:8200"} 1
secrets_node_requests_blocked{target="blk",node="n2",address="https://b2:8200"} 0
secrets_requests_blocked{target="blk"} 1
secrets_replication_up{target="addr",kind="dr"} 0
secrets_requests_blocked{target="addr"} 1
secrets_node_up{target="addr",node="https://a:8200",address="https://a:8200"} 1
`;
  const e = buildEstate(snapshot, [], NOW);
  const cluster = (t: string) => e.secrets.find((c) => c.target === t)!;

  it('names the blocked node as the one problem, its unreadable replication status under it', () => {
    expect(cluster('blk').nodes!.nodes.map((n) => n.requestsBlocked)).toEqual([true, false]);
    expect(cluster('blk').problems).toEqual(['node n1 (https://b1:8200) blocked: audit devices cannot log, nothing audited is served']);
    expect(cluster('blk').consequences).toEqual([
      { cause: 'node n1 (https://b1:8200) blocked: audit devices cannot log, nothing audited is served', lines: ['dr replication status unreadable'] },
    ]);
  });

  it('names the configured address where no node is asked', () => {
    expect(cluster('addr').problems).toEqual(['requests at its address blocked: audit devices cannot log, nothing audited is served']);
    expect(cluster('addr').consequences).toEqual([
      { cause: 'requests at its address blocked: audit devices cannot log, nothing audited is served', lines: ['dr replication status unreadable'] },
    ]);
  });
});
