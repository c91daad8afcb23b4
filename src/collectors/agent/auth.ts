import type { Sent } from '../endpoint.js';

/** What an agent call sends of vigil's credentials: its token, read once a run, and only if a part needs it. */
export interface AgentAuth {
  authorized(): Promise<Sent>;
}
