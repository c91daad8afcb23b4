import type { Sent } from '../endpoint.js';

/**
 * What a secrets-service call sends of vigil's credentials, read once a run (a rotated token file
 * is picked up by the next run): `namespaced` for a path in the target's namespace (the token and the
 * namespace), `rooted` for a root-namespace path (the HA and raft state: the token alone).
 */
export interface SecretsAuth {
  namespaced(): Promise<Sent>;
  rooted(): Promise<Sent>;
}
