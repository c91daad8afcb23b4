import { agentEndpointUp } from '../collectors/agent-common.js';
import { expectedServersFamily } from '../collectors/agent-expected.js';
import { agentUp, healthFamilies } from '../collectors/agent-health.js';
import { hostFamilies } from '../collectors/agent-host.js';
import { membersFamilies } from '../collectors/agent-members.js';
import { selfFamilies } from '../collectors/agent-self.js';
import { serversFamilies } from '../collectors/agent-servers.js';
import { merkleFamilies, merkleUp } from '../collectors/secrets-merkle.js';
import { replicationFamilies, replicationUp } from '../collectors/secrets-replication.js';
import { walLagFamily } from '../collectors/secrets-wal-lag.js';
import { replicationSetFamilies } from '../collectors/secrets-replication-sets.js';
import { attemptFamilies, attemptUp } from '../collectors/secrets-dr-token-attempt.js';
import { sealedFamily } from '../collectors/secrets-seal.js';
import { primaryChangesFamily } from '../collectors/secrets-primary-changes.js';
import { teamsFamilies, teamsUp } from '../collectors/teams.js';
import { lossFractionFamily, ownersTeamFamily } from '../collectors/teams-access-holders.js';
import { httpFamilies } from '../server/telemetry.js';
import { sinkFamilies } from '../sink/families.js';
import type { AnyFamily } from './family.js';
import { daemonFamilies, jobFamilies, upstreamFamilies } from './telemetry.js';
import { tlsFamilies } from './tls-families.js';

/** The families the collection renders, wherever it runs: the head of the body. */
export const COLLECTION_FAMILIES: readonly AnyFamily[] = [
  replicationUp,
  ...replicationFamilies,
  walLagFamily,
  ...replicationSetFamilies,
  merkleUp,
  ...merkleFamilies,
  sealedFamily,
  primaryChangesFamily,
  attemptUp,
  ...attemptFamilies,
  agentUp,
  ...healthFamilies,
  agentEndpointUp,
  ...selfFamilies,
  ...membersFamilies,
  ...serversFamilies,
  ...hostFamilies,
  expectedServersFamily,
  teamsUp,
  ...teamsFamilies,
  ownersTeamFamily,
  lossFractionFamily,
  ...jobFamilies,
  ...upstreamFamilies,
  ...tlsFamilies,
] as readonly AnyFamily[];

/** The families the main thread renders (the alert sink, the daemon, the HTTP server): the tail. */
export const DAEMON_FAMILIES: readonly AnyFamily[] = [...sinkFamilies, ...daemonFamilies, ...httpFamilies] as readonly AnyFamily[];

/**
 * Every metric family vigil exports, in exposition order: the single source for rendering,
 * docs/metrics.md, and the checks that dashboards and alert rules only use metrics that exist.
 */
export const CATALOG: readonly AnyFamily[] = [...COLLECTION_FAMILIES, ...DAEMON_FAMILIES];

const names = CATALOG.map((f) => f.name);
const dup = names.find((n, i) => names.indexOf(n) !== i);
if (dup) throw new Error(`metric ${dup} is declared twice in the catalog`);
