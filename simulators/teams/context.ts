import type { Faults } from '../common/faults.js';
import { noFaults } from '../common/faults.js';
import { addOwnersTeam, populateOrganization } from './generate.js';
import { RateLimiter } from './rate-limit.js';
import type { OrganizationSpec, TeamsScenario } from './scenario.js';
import { PageMemo } from './page-memo.js';
import { TeamStore } from './store.js';
import { TeamsTelemetry } from './telemetry.js';
import type { TeamsProfile } from './profiles.js';

/** A fault bound to one page number of the team list. */
export interface PageFault {
  status?: number;
  delayMs?: number;
}

/** The whole mutable state of one simulator instance; nothing lives at module level. */
export interface SimulatorContext {
  readonly store: TeamStore;
  readonly faults: Faults;
  readonly pageFaults: Map<number, PageFault>;
  readonly limiter: RateLimiter;
  readonly maxPageSize: number;
  /** API requests seen, by path (query left out). */
  readonly requests: Map<string, number>;
  /** The release whose shapes the service answers in. */
  readonly profile: TeamsProfile;
  /** The hosted service's metrics service: agents per pool, runs by status. */
  readonly telemetry: TeamsTelemetry;
  /** Team listings as sent, while the store is unchanged. */
  readonly pages: PageMemo;
}

export const DEFAULT_RATE_PER_SECOND = 30;
export const DEFAULT_MAX_PAGE_SIZE = 100;

export function addOrganization(store: TeamStore, spec: OrganizationSpec): string {
  const org = store.addOrganization(spec.name, spec.seed ?? 1);
  populateOrganization(store, org, spec.teams);
  if (spec.owners !== undefined) addOwnersTeam(store, org, spec.owners);
  return org.ownerToken;
}

export function createContext(scenario: TeamsScenario, profile: TeamsProfile = 'current'): SimulatorContext {
  const store = new TeamStore();
  for (const spec of scenario.organizations) addOrganization(store, spec);
  return {
    store,
    faults: noFaults(),
    pageFaults: new Map(),
    profile,
    limiter: new RateLimiter(scenario.rateLimit?.perSecond ?? DEFAULT_RATE_PER_SECOND),
    maxPageSize: scenario.maxPageSize ?? DEFAULT_MAX_PAGE_SIZE,
    requests: new Map(),
    telemetry: new TeamsTelemetry(),
    pages: new PageMemo(),
  };
}
