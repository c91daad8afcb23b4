import { describe, expect, it } from 'vitest';
import { haStatusResponse, haView, type HaView } from '../../../../src/collectors/secrets/ha-status.js';
import { nodeAddressing } from '../../../../src/collectors/secrets/node-addresses.js';
import { discover } from '../../../../src/collectors/secrets/node-discovery.js';
import { NodeNames } from '../../../../src/collectors/secrets/node-names.js';
import { autopilotStateResponse, autopilotView, type AutopilotView } from '../../../../src/collectors/secrets/raft-autopilot-answer.js';
import { MAX_LABEL_VALUE } from '../../../../src/support/label-value.js';
import { jsonBody, realAnswer } from '../../../helpers/real-corpus.js';

/**
 * One name per node: the raft node ID joined by the cluster address, else the HA status's hostname,
 * else the API address; and the last name kept while autopilot cannot be read.
 *
 * The answers are the corpus's (test/fixtures/real/secrets): the HA status of the 1.17 documentation
 * (hostnames node1 to node3, API addresses http://10.0.0.{2,3,4}:8200) and the autopilot state of the
 * 1.18 documentation (servers raft1 to raft3 at 127.0.0.{1,2,3}:8201). The two samples come from two
 * clusters, so where a test joins them, the HA status's cluster addresses are set to the autopilot
 * answer's, and that is the only change.
 */
const asIs = nodeAddressing('https://vault.example:8200', undefined);

const haOf = (file: string, clusterAddresses?: readonly string[]): HaView => {
  const body = structuredClone(jsonBody(realAnswer(file))) as { Nodes: Array<{ cluster_address: string }> };
  if (clusterAddresses) body.Nodes.forEach((n, i) => (n.cluster_address = clusterAddresses[i]!));
  return haView(haStatusResponse.parse(body).nodes, asIs);
};
const autopilotOf = (file: string): AutopilotView => autopilotView(autopilotStateResponse.parse(jsonBody(realAnswer(file)))!, 100);

const API = ['http://10.0.0.2:8200', 'http://10.0.0.3:8200', 'http://10.0.0.4:8200'];
const JOINED = ['https://127.0.0.1:8201', 'https://127.0.0.2:8201', 'https://127.0.0.3:8201'];
const named = (names: ReadonlyMap<string, string>) => Object.fromEntries(names);

describe('a node polled at its API address is named', () => {
  it('by its raft node ID, the server whose cluster address the HA status pairs with it', () => {
    const names = new NodeNames().name({
      nodes: API,
      ha: haOf('secrets/ha-status-1.17.json', JOINED),
      autopilot: autopilotOf('secrets/raft-autopilot-state-1.18.json'),
    });
    expect(named(names)).toEqual({ [API[0]!]: 'raft1', [API[1]!]: 'raft2', [API[2]!]: 'raft3' });
  });

  it('by its raft node ID where the cluster address is written with a scheme, a slash or in capitals', () => {
    const ha = haOf('secrets/ha-status-1.17.json', ['HTTPS://127.0.0.1:8201/', '127.0.0.2:8201', 'https://127.0.0.3:8201']);
    const names = new NodeNames().name({ nodes: API, ha, autopilot: autopilotOf('secrets/raft-autopilot-state-1.18.json') });
    expect([...names.values()]).toEqual(['raft1', 'raft2', 'raft3']);
  });

  it('by its raft node ID when it was polled from autopilot alone (no HA status names it)', () => {
    const autopilot = autopilotOf('secrets/raft-autopilot-state-1.14-unhealthy-issue-25360.json');
    const d = discover({
      address: 'https://vault.example:8200',
      addressing: asIs,
      ha: { part: 'ha', group: new Map() },
      autopilot: { part: 'autopilot', group: new Map(), value: autopilot },
      known: new Map(),
    });
    expect(d.nodes).toEqual(['https://node1:8200', 'https://node2:8200']);
    expect(named(new NodeNames().name({ nodes: d.nodes, ha: undefined, autopilot, raftIds: d.raftIds }))).toEqual({
      'https://node1:8200': 'vault-01',
      'https://node2:8200': 'vault-02',
    });
  });

  it("by the HA status's hostname where autopilot names no server at its cluster address", () => {
    const names = new NodeNames().name({
      nodes: API,
      ha: haOf('secrets/ha-status-1.10.json'),
      autopilot: autopilotOf('secrets/raft-autopilot-state-1.18.json'),
    });
    expect([...names.values()]).toEqual(['node1', 'node2', 'node3']);
  });

  it('by its address where no answer names it (a listed node, the configured address alone)', () => {
    const names = new NodeNames().name({ nodes: ['https://vault.example:8200', API[0]!], ha: haOf('secrets/ha-status-1.10.json'), autopilot: undefined });
    expect([...names.values()]).toEqual(['https://vault.example:8200', 'node1']);
  });

  it('by a bounded label value, however long the ID the answer sends', () => {
    const autopilot = autopilotOf('secrets/raft-autopilot-state-1.18.json');
    const long = 'r'.repeat(100_000);
    const servers = { [long]: autopilot.servers.raft1! };
    const names = new NodeNames().name({ nodes: [API[0]!], ha: haOf('secrets/ha-status-1.17.json', JOINED), autopilot: { ...autopilot, servers } });
    expect(names.get(API[0]!)!.length).toBeLessThanOrEqual(MAX_LABEL_VALUE);
    expect(names.get(API[0]!)!.startsWith('rrrr')).toBe(true);
  });
});

describe('a node keeps its name from run to run', () => {
  const ha = haOf('secrets/ha-status-1.17.json', JOINED);
  const autopilot = autopilotOf('secrets/raft-autopilot-state-1.18.json');

  it('while autopilot cannot be read for a run (an election, a refusal), rather than flip to its hostname and back', () => {
    const names = new NodeNames();
    expect([...names.name({ nodes: API, ha, autopilot }).values()]).toEqual(['raft1', 'raft2', 'raft3']);
    expect([...names.name({ nodes: API, ha, autopilot: undefined }).values()]).toEqual(['raft1', 'raft2', 'raft3']);
    expect([...names.name({ nodes: API, ha: undefined, autopilot: undefined }).values()]).toEqual(['raft1', 'raft2', 'raft3']);
    expect([...names.name({ nodes: API, ha, autopilot }).values()]).toEqual(['raft1', 'raft2', 'raft3']);
  });

  it('while the HA status is missing for a run, by the hostname it gave before', () => {
    const names = new NodeNames();
    names.name({ nodes: API, ha: haOf('secrets/ha-status-1.10.json'), autopilot: undefined });
    expect([...names.name({ nodes: API, ha: undefined, autopilot: undefined }).values()]).toEqual(['node1', 'node2', 'node3']);
  });

  it('until autopilot gives its raft node ID, which then wins over the hostname for good', () => {
    const names = new NodeNames();
    expect([...names.name({ nodes: API, ha, autopilot: undefined }).values()]).toEqual(['node1', 'node2', 'node3']);
    expect([...names.name({ nodes: API, ha, autopilot }).values()]).toEqual(['raft1', 'raft2', 'raft3']);
    expect([...names.name({ nodes: API, ha, autopilot: undefined }).values()]).toEqual(['raft1', 'raft2', 'raft3']);
  });

  it('only while the node is polled: the memory holds no more names than the nodes of the last run', () => {
    const names = new NodeNames();
    names.name({ nodes: API, ha, autopilot });
    names.name({ nodes: [API[0]!], ha, autopilot });
    expect(named(names.name({ nodes: API, ha: undefined, autopilot: undefined }))).toEqual({ [API[0]!]: 'raft1', [API[1]!]: API[1], [API[2]!]: API[2] });
  });
});
