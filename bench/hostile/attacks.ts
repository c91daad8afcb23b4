/**
 * The red team's attacks as bench/hostile-rerun.ts replays them: each a hostile upstream (its
 * answers, built here on the fly) and the vigil target that polls it, named `hostile`, on a 5-second
 * schedule. Advertised addresses other than the server's own are 127.1.x.y and 127.2.x.y: loopback,
 * nothing listens there, so a dial is refused at once and nothing leaves the machine (the red team
 * used 10.x.y.z addresses, where a dial may hang until the timeout instead).
 */
import type http from 'node:http';
import type { Socket } from 'node:net';
import {
  AGENT_HEALTH,
  AGENT_SWITCHES_OFF,
  agentHealth,
  EVERY_5S,
  raftServer,
  routes,
  secretsAnswers,
  send,
  type ConnectHandler,
  type Handler,
} from './upstreams.js';

export interface Attack {
  name: string;
  /** The kind of the healthy target that shares the vigil: another kind than the hostile one. */
  healthy: 'secrets' | 'agent';
  handler: (url: string) => Handler;
  connect?: ConnectHandler;
  /** vigil's config for the hostile target; `dir` holds a token file `token`. */
  config: (url: string, dir: string) => Record<string, unknown[]>;
}

/** A loopback address of its own for server `i` (never 127.0.0.1). */
const loopback = (i: number) => `127.${1 + ((i >> 16) & 255)}.${(i >> 8) & 255}.${i & 255}`;
const secretsTarget = (url: string, extra: Record<string, unknown> = {}) => ({ secrets: [{ name: 'hostile', address: url, schedule: EVERY_5S, ...extra }] });

/** 12,000 raft servers (~1.7 MB), the cluster's other answers minimal. */
const autopilot: Attack = {
  name: 'autopilot',
  healthy: 'agent',
  handler: (url) => {
    const servers: string[] = [];
    for (let i = 0; i < 12_000; i++) {
      const id = i === 0 ? 'node1' : `raft-${i}`;
      servers.push(`${JSON.stringify(id)}:${JSON.stringify(raftServer(id, i === 0 ? '127.0.0.1:8201' : `${loopback(i)}:8201`, i === 0 ? 'leader' : 'voter'))}`);
    }
    const body = `{"data":{"healthy":true,"failure_tolerance":5999,"leader":"node1","servers":{${servers.join(',')}}}}`;
    return routes({ ...secretsAnswers(url), '/v1/sys/storage/raft/autopilot/state': (_q, res) => send(res, body) });
  },
  config: (url) => secretsTarget(url),
};

/** 100,000 nodes, each in a node pool of its own: 200 pages of 500, made as they are asked for. */
const NODES = 100_000;
const nodes: Attack = {
  name: 'nodes',
  healthy: 'secrets',
  handler: () =>
    routes({
      [AGENT_HEALTH]: agentHealth,
      '/v1/nodes': (req, res) => {
        const q = new URL(req.url ?? '/', 'http://x').searchParams;
        const perPage = Number(q.get('per_page') ?? NODES) || NODES;
        const from = Number(/^n(\d+)$/.exec(q.get('next_token') ?? '')?.[1] ?? 0);
        const to = Math.min(NODES, from + perPage);
        const page: string[] = [];
        for (let i = from; i < to; i++) {
          const id = `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
          page.push(
            `{"ID":"${id}","Name":"client-${i}","Datacenter":"dc1","NodeClass":"","NodePool":"pool-${i}","Status":"ready","SchedulingEligibility":"eligible","Drain":false,"Version":"1.9.3"}`,
          );
        }
        send(res, `[${page.join(',')}]`, 200, to < NODES ? { 'X-Nomad-NextToken': `n${to}` } : {});
      },
    }),
  config: (url) => ({
    agents: [{ name: 'hostile', address: url, schedule: EVERY_5S, ...AGENT_SWITCHES_OFF, nodes: true, nodes_schedule: EVERY_5S, node_page_size: 500 }],
  }),
};

/** 6 pages of exactly the 100 teams asked for, each team's name 150,000 characters. */
const NAME_CHARS = 150_000;
const names: Attack = {
  name: 'names',
  healthy: 'secrets',
  handler: () => {
    const pad = 'x'.repeat(NAME_CHARS);
    return (req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      if (!new URL(req.url ?? '/', 'http://x').pathname.endsWith('/teams')) return send(res, '{"errors":[{"status":"404","title":"not found"}]}', 404);
      const number = Number(q.get('page[number]') ?? 1);
      const size = Number(q.get('page[size]') ?? 20);
      const teams: string[] = [];
      for (let i = 0; i < size; i++) {
        const id = `team-${number}-${i}`;
        const name = `${id}-${pad}`.slice(0, NAME_CHARS);
        teams.push(`{"id":"${id}","type":"teams","attributes":{"name":"${name}","users-count":3,"visibility":"organization"}}`);
      }
      const pagination = { 'current-page': number, 'next-page': number < 6 ? number + 1 : null, 'prev-page': null, 'total-pages': 6, 'total-count': 6 * size };
      send(res, `{"data":[${teams.join(',')}],"links":{},"meta":{"pagination":${JSON.stringify(pagination)}}}`, 200, {
        'content-type': 'application/vnd.api+json',
      });
    };
  },
  config: (url, dir) => ({
    teams: [{ name: 'hostile', address: url, organization: 'acme', token_file: `${dir}/token`, schedule: EVERY_5S, page_size: 100, requests_per_second: 1000 }],
  }),
};

/**
 * sys/ha-status lists 100,000 nodes (the active one this server, one with a 2 MB api_address), each
 * with the clock skew and echo duration that give a node series of its own; sys/leader a 4 MB
 * leader_address. Only the active node says its cluster_address: the answer stays under the
 * default max_response_size of 16 MiB (14 MiB).
 */
const haStatus: Attack = {
  name: 'ha-status',
  healthy: 'agent',
  handler: (url) => {
    const list: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const api = i === 0 ? url : i === 1 ? `http://127.0.0.1:9/${'p'.repeat(2_000_000)}` : `http://${loopback(i)}:9`;
      const raft = i === 0 ? ',"cluster_address":"https://127.0.0.1:8201"' : '';
      list.push(`{"hostname":"node${i}","api_address":"${api}"${raft},"active_node":${i === 0},"clock_skew_ms":3,"echo_duration_ms":1}`);
    }
    const ha = `{"Nodes":[${list.join(',')}]}`;
    const leader = JSON.stringify({
      ha_enabled: true,
      is_self: true,
      leader_address: `http://127.0.0.1:9/${'x'.repeat(4_000_000)}`,
      performance_standby: false,
    });
    return routes({ ...secretsAnswers(url), '/v1/sys/ha-status': (_q, res) => send(res, ha), '/v1/sys/leader': (_q, res) => send(res, leader) });
  },
  config: (url) => secretsTarget(url),
};

/** What an echoing proxy answers: 502, the request's headers in the body. */
const echo = (req: http.IncomingMessage) => `bad gateway; your request was:\n${req.method} ${req.url}\n${JSON.stringify(req.headers, null, 1)}\n`;
export const PROXY_USER = 'user';
export const PROXY_PASSWORD = 'S3cretProxyPass';

/** A plain-http secrets target behind a proxy with credentials that answers 502, echoing the headers it got. */
const echoProxy: Attack = {
  name: 'echo-proxy',
  healthy: 'agent',
  handler: () => (req, res) => send(res, echo(req), 502, { 'content-type': 'text/plain' }),
  connect: (req: http.IncomingMessage, socket: Socket) => {
    const body = echo(req);
    socket.on('error', () => undefined);
    socket.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  },
  config: (url) => secretsTarget('http://secrets.internal:8200', { proxy_url: url.replace('//', `//${PROXY_USER}:${PROXY_PASSWORD}@`) }),
};

export const ATTACKS: readonly Attack[] = [autopilot, nodes, names, haStatus, echoProxy];
