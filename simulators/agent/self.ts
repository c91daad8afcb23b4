import type { AgentModel } from './agent.js';
import { RPC_PORT, SERF_PORT, stableRevision } from './identity.js';
import { NO_MEMBER } from './members.js';
import { agentStats } from './stats.js';

const SECOND_NS = 1_000_000_000;

/** The body of GET /agent/self: the agent's configuration, its own pool member and its stats. */
export function selfBody(agent: AgentModel, aclEnabled: boolean): Record<string, unknown> {
  return {
    config: agentConfig(agent, aclEnabled),
    member: agent.pool?.local ?? NO_MEMBER,
    stats: agentStats(agent),
  };
}

/**
 * A configuration shaped like the real agent's: Go field names, durations that are time.Duration
 * as integer nanoseconds, the rest as the strings the config file held, secrets redacted.
 * One object literal, a table of data: as long as the real agent's configuration.
 */
// eslint-disable-next-line max-lines-per-function -- one object literal, a copy of the real agent's configuration
function agentConfig(agent: AgentModel, aclEnabled: boolean): Record<string, unknown> {
  const revision = stableRevision(agent.version);
  const dataDir = '/var/lib/nomad';
  return {
    Region: agent.region,
    Datacenter: agent.datacenter,
    NodeName: agent.name,
    DataDir: dataDir,
    PluginDir: `${dataDir}/plugins`,
    LogLevel: 'INFO',
    LogJson: false,
    BindAddr: '0.0.0.0',
    EnableDebug: false,
    Ports: { HTTP: agent.httpPort, RPC: RPC_PORT, Serf: SERF_PORT },
    Addresses: { HTTP: '127.0.0.1', RPC: '0.0.0.0', Serf: '0.0.0.0' },
    AdvertiseAddrs: {
      HTTP: `${agent.ip}:${agent.httpPort}`,
      RPC: `${agent.ip}:${RPC_PORT}`,
      Serf: `${agent.ip}:${SERF_PORT}`,
    },
    Server: {
      Enabled: agent.isServer,
      BootstrapExpect: agent.isServer ? Math.min(agent.pool?.counts().members ?? 1, 3) : 0,
      DataDir: '',
      NumSchedulers: agent.isServer ? 8 : 0,
      HeartbeatGrace: 10 * SECOND_NS,
      MinHeartbeatTTL: 10 * SECOND_NS,
      MaxHeartbeatsPerSecond: 50,
      RaftProtocol: 3,
      RetryJoin: [],
      RetryInterval: '30s',
      NodeGCThreshold: '24h',
      EncryptKey: agent.isServer ? '<redacted>' : '',
    },
    Client: {
      Enabled: agent.isClient,
      StateDir: agent.isClient ? `${dataDir}/client` : '',
      AllocDir: agent.isClient ? `${dataDir}/alloc` : '',
      Servers: [...agent.knownServers()],
      NodeClass: '',
      NetworkInterface: 'eth0',
      CpuCompute: 0,
      MemoryMB: 0,
      MaxKillTimeout: '30s',
      GCInterval: 60 * SECOND_NS,
      GCParallelDestroys: 2,
      GCDiskUsageThreshold: 80,
      GCInodeUsageThreshold: 70,
      GCMaxAllocs: 50,
      Meta: {},
    },
    ACL: { Enabled: aclEnabled, TokenTTL: 30 * SECOND_NS, PolicyTTL: 30 * SECOND_NS, ReplicationToken: '' },
    Telemetry: {
      CollectionInterval: '1s',
      PublishAllocationMetrics: true,
      PublishNodeMetrics: true,
      PrometheusMetrics: true,
      DisableHostname: false,
      UseNodeName: false,
      StatsiteAddr: '',
      StatsdAddr: '',
      CirconusAPIToken: '',
    },
    TLSConfig: {
      EnableHTTP: false,
      EnableRPC: false,
      VerifyServerHostname: false,
      VerifyHTTPSClient: false,
      CAFile: '',
      CertFile: '',
      KeyFile: '',
      TLSMinVersion: '',
    },
    Consul: {
      Name: 'default',
      Addr: '127.0.0.1:8500',
      ServerServiceName: 'nomad',
      ClientServiceName: 'nomad-client',
      AutoAdvertise: true,
      ChecksUseAdvertise: false,
      Token: '<redacted>',
      Timeout: 5 * SECOND_NS,
    },
    Vault: { Name: 'default', Enabled: false, Addr: 'https://vault.service.consul:8200', Role: '', Token: '' },
    Files: [`/etc/nomad.d/${agent.isServer ? 'server' : 'client'}.hcl`],
    HTTPAPIResponseHeaders: {},
    DevMode: false,
    DisableAnonymousSignature: false,
    DisableUpdateCheck: false,
    EnableSyslog: false,
    SyslogFacility: 'LOCAL0',
    LeaveOnInt: false,
    LeaveOnTerm: false,
    Revision: revision,
    VersionPrerelease: '',
    Version: { Version: agent.version, VersionPrerelease: '', VersionMetadata: '', Revision: revision, BuildDate: '2024-11-11T16:35:41Z' },
  };
}
