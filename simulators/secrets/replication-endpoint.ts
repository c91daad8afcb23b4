import type { Reply } from './api-error.js';
import type { ClusterModel, Kind } from './cluster.js';
import type { Fleet } from './fleet.js';
import type { Body } from './request-body.js';

export interface ApiContext {
  fleet: Fleet;
  cluster: ClusterModel;
  kind: Kind;
  params: Record<string, string>;
  body: Body;
  now: Date;
}

export type Method = 'GET' | 'POST' | 'DELETE';

/**
 * How a request is authorized. `public`: the status endpoints, open in every namespace;
 * `client`/`sudo`: a client token; `operation-token`: `dr_operation_token` in the body;
 * `key-shares`: unauthenticated, the unseal key shares are the proof.
 */
export type Access = 'public' | 'client' | 'sudo' | 'operation-token' | 'key-shares';

export interface Endpoint {
  /** Segments below `sys/replication/`: literals, `{kind}`, or `{name}` parameters. */
  pattern: string[];
  access: Access | Record<Kind, Access>;
  help: string;
  methods: Partial<Record<Method, (ctx: ApiContext) => Reply>>;
}

export function endpoint(path: string, access: Endpoint['access'], help: string, methods: Endpoint['methods']): Endpoint {
  return { pattern: path.split('/'), access, help, methods };
}

export const post = (path: string, access: Endpoint['access'], help: string, handler: (ctx: ApiContext) => Reply): Endpoint =>
  endpoint(path, access, help, { POST: handler });
