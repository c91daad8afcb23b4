/**
 * Loopback upstreams for bench/hostile-rerun.ts: a server per target, and the small valid answers of
 * a healthy secrets cluster and a healthy cluster agent (bodies as test/fixtures/real/secrets and the
 * specs in /work/shared/spec give them), which an attack overrides path by path.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
/** A proxy's answer to CONNECT, on the raw socket. */
export type ConnectHandler = (req: http.IncomingMessage, socket: Socket) => void;

export interface Upstream {
  url: string;
  /** Requests answered so far. */
  requests(): number;
  close(): Promise<void>;
}

/** One loopback server on a free port; `make` gets the server's own URL (for the addresses its answers advertise). */
export async function serve(make: (url: string) => Handler, connect?: ConnectHandler): Promise<Upstream> {
  let handler: Handler = () => undefined;
  let requests = 0;
  const server = http.createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    requests++;
    handler(req, res);
  });
  if (connect) server.on('connect', (req: http.IncomingMessage, socket: Socket) => (requests++, connect(req, socket)));
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handler = make(url);
  return {
    url,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

export function send(res: http.ServerResponse, body: string, status = 200, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
}

const pathOf = (req: http.IncomingMessage) => new URL(req.url ?? '/', 'http://x').pathname;

/** Answers by path; an unknown path is a 404 as the services give it. */
export function routes(table: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>): Handler {
  return (req, res) => {
    const route = table[pathOf(req)];
    if (route) route(req, res);
    else send(res, '{"errors":[]}', 404);
  };
}

const fixed = (body: unknown) => {
  const text = JSON.stringify(body);
  return (_req: http.IncomingMessage, res: http.ServerResponse) => send(res, text);
};

/** The raft address of the one node of a healthy cluster (paired with its HA status entry). */
const RAFT = '127.0.0.1:8201';

/** A one-node secrets cluster at `url`, active, unsealed, integrated storage, no replication. */
export function secretsAnswers(url: string): Record<string, Handler> {
  const cluster = { cluster_name: 'bench', cluster_id: '00af5aa8-c87d-b5fc-e82e-97cd8dfaf731', version: '1.19.0' };
  return {
    '/v1/sys/health': fixed({
      initialized: true,
      sealed: false,
      standby: false,
      performance_standby: false,
      replication_performance_mode: 'disabled',
      replication_dr_mode: 'disabled',
      server_time_utc: Math.floor(Date.now() / 1000),
      ...cluster,
    }),
    '/v1/sys/seal-status': fixed({ type: 'shamir', sealed: false, t: 3, n: 5, progress: 0, nonce: '', ...cluster }),
    '/v1/sys/seal-backend-status': fixed({ healthy: true, backends: [{ name: 'shamir', healthy: true }] }),
    '/v1/sys/ha-status': fixed({
      Nodes: [{ hostname: 'node1', api_address: url, cluster_address: `https://${RAFT}`, active_node: true, last_echo: null, version: '1.19.0' }],
    }),
    '/v1/sys/leader': fixed({
      ha_enabled: true,
      is_self: true,
      leader_address: url,
      leader_cluster_address: `https://${RAFT}`,
      performance_standby: false,
      performance_standby_last_remote_wal: 0,
    }),
    '/v1/sys/storage/raft/autopilot/state': fixed({
      data: {
        healthy: true,
        failure_tolerance: 0,
        leader: 'node1',
        voters: ['node1'],
        servers: { node1: raftServer('node1', RAFT, 'leader') },
      },
    }),
    '/v1/sys/replication/dr/status': fixed({ data: { mode: 'disabled' } }),
    '/v1/sys/replication/performance/status': fixed({ data: { mode: 'disabled' } }),
  };
}

export const raftServer = (id: string, address: string, status: string) => ({
  id,
  name: id,
  address,
  node_status: 'alive',
  last_contact: '0s',
  last_term: 3,
  last_index: 459,
  healthy: true,
  stable_since: '2026-01-01T00:00:00Z',
  status,
  meta: null,
});

export const AGENT_HEALTH = '/v1/agent/health';
export const agentHealth = fixed({ client: { ok: true, message: 'ok' }, server: { ok: true, message: 'ok' } });

/** The agent's optional endpoints, all off: a healthy agent target polls its health alone. */
export const AGENT_SWITCHES_OFF = {
  members: false,
  servers: false,
  self: false,
  host: false,
  autopilot: false,
  token: false,
  nodes: false,
  jobs: false,
  evaluations: false,
  deployments: false,
};

/** The healthy target of each attack: of another kind than the hostile one, on the same 5-second schedule. */
export const EVERY_5S = '*/5 * * * * *';
export const healthy = {
  secrets: {
    handler: (url: string) => routes(secretsAnswers(url)),
    config: (address: string) => ({ secrets: [{ name: 'healthy', address, schedule: EVERY_5S }] }),
  },
  agent: {
    handler: () => routes({ [AGENT_HEALTH]: agentHealth }),
    config: (address: string) => ({ agents: [{ name: 'healthy', address, schedule: EVERY_5S, ...AGENT_SWITCHES_OFF }] }),
  },
} as const;
