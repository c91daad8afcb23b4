import type { AgentModel } from './agent.js';

const REDACTED = '<redacted>';

/** The body of GET /agent/host: what the debug archive records about the machine the agent runs on. */
export function hostBody(agent: AgentModel): unknown {
  // Sizes are made up but stable per agent, so a dashboard shows different, steady hosts.
  const seed = [...agent.name].reduce((sum, ch) => sum + ch.charCodeAt(0), 0);
  const rootMB = 51_200;
  const dataMB = 204_800;
  const net16 = agent.ip.split('.').slice(0, 2).join('.');
  return {
    AgentID: agent.nodeId,
    HostData: {
      OS: 'Ubuntu 22.04.4 LTS (Jammy Jellyfish) linux 5.15.0-105-generic',
      Network: [
        netAddress({ iface: 'lo', address: '127.0.0.1', netmask: '255.0.0.0', network: '127.0.0.0', broadcast: '127.255.255.255', bits: 8 }),
        netAddress({ iface: 'eth0', address: agent.ip, netmask: '255.255.0.0', network: `${net16}.0.0`, broadcast: `${net16}.255.255`, bits: 16 }),
      ],
      ResolvConf: 'nameserver 127.0.0.53\noptions edns0 trust-ad\nsearch service.consul\n',
      Hosts: `127.0.0.1 localhost\n${agent.ip} ${agent.name}\n`,
      Environment: {
        PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        HOME: '/root',
        LANG: 'C.UTF-8',
        NOMAD_ADDR: `http://127.0.0.1:${agent.httpPort}`,
        NOMAD_TOKEN: REDACTED,
        VAULT_TOKEN: REDACTED,
        CONSUL_HTTP_TOKEN: REDACTED,
        // The agent only redacts names it knows: this one leaks, as the spec warns other secrets may.
        APP_DB_PASSWORD: 'sim-not-a-real-secret',
      },
      Disk: {
        '/': { DiskMB: rootMB, UsedMB: agent.diskUsedOverride['/'] ?? 9_000 + ((seed * 37) % 20_000) },
        '/var/lib/nomad': {
          DiskMB: dataMB,
          UsedMB: agent.diskUsedOverride['/var/lib/nomad'] ?? 30_000 + ((seed * 101) % 90_000) + agent.allocations * 512,
        },
      },
    },
  };
}

interface NetAddress {
  iface: string;
  address: string;
  netmask: string;
  network: string;
  broadcast: string;
  bits: number;
}

function netAddress(a: NetAddress): Record<string, string> {
  return {
    interface: a.iface,
    address: a.address,
    netmask: a.netmask,
    network: a.network,
    broadcast: a.broadcast,
    mask_bits: String(a.bits),
    size: String(2 ** (32 - a.bits)),
    type: 'IPv4',
  };
}
