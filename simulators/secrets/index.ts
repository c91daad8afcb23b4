import { IDLE_KEEP_ALIVE_MS, listen, type RunningServer, type ServeTls } from '../common/http.js';
import { createCluster, type ClusterModel } from './cluster.js';
import { createSnapshots } from './snapshots.js';
import { clusterHandler } from './cluster-server.js';
import { Fleet } from './fleet.js';
import { anyOperationToken } from './operation-token.js';
import { quirksOf, type SecretsProfile } from './profiles.js';
import { applyReplication, parseScenario, type SecretsScenario } from './scenario.js';

export { DEMO_NODES_CLUSTER, DEMO_SEAL_BACKENDS, demoSecretsScenario, demoWithNodesScenario, loadScenarioFile, parseScenario } from './scenario.js';
export type { ReplicationLink, SecretsScenario } from './scenario.js';
export { decodeOperationToken } from './operation-token.js';
export { SECRETS_PROFILES, type SecretsProfile } from './profiles.js';

export interface SimulatedCluster {
  readonly name: string;
  /** Base URL; the API is at `url + '/v1/...'`, the admin routes at `url + '/_sim/...'`. */
  readonly url: string;
  /** Client token with sudo, for X-Secrets-Token or Authorization: Bearer. */
  readonly rootToken: string;
  /** Its nodes' own API addresses, by node id (`node-1` is active at the start). */
  readonly nodes: ReadonlyMap<string, string>;
  /** A valid DR operation token for this cluster, minted if it has none. */
  drOperationToken(): string;
  /** API requests this cluster has answered at its own address. */
  requests(): number;
  /** API requests its nodes have answered at theirs. */
  nodeRequests(): number;
}

export interface SecretsSimulator {
  readonly clusters: ReadonlyMap<string, SimulatedCluster>;
  cluster(name: string): SimulatedCluster;
  close(): Promise<void>;
}

export interface SecretsSimulatorOptions {
  host?: string;
  /** How often every primary's WAL advances by one; default 1000 ms. */
  walTickMs?: number;
  /** Serve every cluster over HTTPS with this certificate and key. */
  tls?: ServeTls;
  /** Serve a node's own address with a certificate of its own (by cluster and node ID); default `tls`. */
  nodeTls?: (cluster: string, node: string) => ServeTls | undefined;
  /** Answer in the shapes of an older release (see profiles.ts); default `current`. */
  profile?: SecretsProfile;
}

function simulated(model: ClusterModel, server: RunningServer, nodeServers: readonly RunningServer[]): SimulatedCluster {
  return {
    name: model.name,
    url: model.url,
    rootToken: model.rootToken,
    nodes: new Map(model.nodes.nodes.map((n) => [n.id, n.url])),
    drOperationToken: () => anyOperationToken(model),
    requests: () => server.requests(),
    nodeRequests: () => nodeServers.reduce((n, s) => n + s.requests(), 0),
  };
}

export async function startSecretsSimulator(scenario: SecretsScenario, opts: SecretsSimulatorOptions = {}): Promise<SecretsSimulator> {
  const valid = parseScenario(scenario);
  const host = opts.host ?? '127.0.0.1';
  const fleet = new Fleet();
  const servers: RunningServer[] = [];
  const serverOf = new Map<string, RunningServer>();
  const nodeServersOf = new Map<string, RunningServer[]>();
  const closeAll = async () => {
    fleet.stopTicking();
    await Promise.all(servers.splice(0).map((s) => s.close()));
  };
  try {
    for (const spec of valid.clusters) {
      const model = createCluster(spec.name, spec.nodes, spec.sealBackends, createSnapshots(spec.snapshots, spec.snapshotSupport));
      Object.assign(model.quirks, quirksOf(opts.profile ?? 'current'));
      for (const node of model.nodes.nodes) node.telemetry.unauthenticatedMetricsAccess = spec.unauthenticatedMetricsAccess ?? false;
      const server = await listen(clusterHandler(fleet, model), spec.port ?? 0, host, opts.tls, IDLE_KEEP_ALIVE_MS.secrets);
      servers.push(server);
      serverOf.set(spec.name, server);
      model.url = server.url;
      const nodeServers: RunningServer[] = [];
      for (const node of model.nodes.nodes) {
        const own = await listen(clusterHandler(fleet, model, node), 0, host, opts.nodeTls?.(spec.name, node.id) ?? opts.tls, IDLE_KEEP_ALIVE_MS.secrets);
        servers.push(own);
        nodeServers.push(own);
        node.url = own.url;
      }
      nodeServersOf.set(spec.name, nodeServers);
      // Cluster-to-cluster traffic is modelled in memory; the address only has to be unique and look real.
      model.clusterAddr = `https://${spec.name}:8201`;
      fleet.add(model);
    }
    applyReplication(fleet, valid.replication ?? []);
  } catch (err) {
    await closeAll();
    throw err;
  }
  fleet.startTicking(opts.walTickMs ?? 1000);
  const clusters = new Map([...fleet.clusters].map(([name, model]) => [name, simulated(model, serverOf.get(name)!, nodeServersOf.get(name) ?? [])]));
  return {
    clusters,
    cluster(name) {
      const found = clusters.get(name);
      if (!found) throw new Error(`no simulated secrets cluster "${name}" (have: ${[...clusters.keys()].join(', ')})`);
      return found;
    },
    close: closeAll,
  };
}
