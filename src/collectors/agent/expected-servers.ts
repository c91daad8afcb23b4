import { family, single, type Family } from '../../metrics/family.js';

/**
 * What the operator told vigil to expect of an agent, exported beside what the agent reports so an
 * alert rule can compare the two per target (there is no other place a per-target threshold can live).
 */
export const expectedServersFamily: Family<number | undefined> = family<number | undefined>({
  name: 'scheduler_agent_expected_servers',
  help: 'Servers the target is expected to know (a client) or to have in its raft cluster (a server), from expected_servers in the config; absent when not set.',
  type: 'gauge',
  section: 'agent',
  labels: ['target'],
  samples: single((n) => n),
});
