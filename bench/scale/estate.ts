import { http } from './start-vigil.js';

/**
 * The estate the scale benchmark watches, at a fraction of full size, and vigil's configuration for
 * it. Full size is the issue's: 10 secrets primaries with a secondary each (both kinds replicated,
 * three nodes each, vigil holding a token: its lookup and the audited request), 5 server agents with
 * 5,000 gossip members each, 20 client agents, a region of 1,000 client nodes in 4 pools running 300
 * jobs (with their evaluations and deployments), 5 organizations of 2,000 teams. Per-target sizes
 * and the counts of small targets scale with the fraction; the 5 servers and the 5 organizations
 * stay, so the series count grows linearly with it.
 */
export interface EstateShape {
  pairs: number;
  servers: number;
  members: number;
  clients: number;
  /** Client nodes of the region (`/v1/nodes`). */
  nodes: number;
  /** Jobs of the region (`/v1/jobs`), with their evaluations and deployments. */
  jobs: number;
  organizations: number;
  teams: number;
}

export function shapeAt(scale: number, override: Partial<EstateShape> = {}): EstateShape {
  const of = (full: number) => Math.max(1, Math.round(full * scale));
  return { pairs: of(10), servers: 5, members: of(5000), clients: of(20), nodes: of(1000), jobs: of(300), organizations: 5, teams: of(2000), ...override };
}

/**
 * Agents that list the region's client nodes and its workload: as docs/configuration-agents.md
 * advises, one or two per region (every agent answers the same listing from the region's servers).
 */
export const LISTING_AGENTS = 2;

/** What the estate child prints once every simulator listens. */
export interface Estate {
  shape: EstateShape;
  secrets: Array<{ name: string; url: string; tokenFile: string }>;
  agents: Array<{ name: string; url: string }>;
  agentTokenFile: string;
  teamsUrl: string;
  organizations: Array<{ name: string; tokenFile: string }>;
}

/** Every base URL whose `/_sim/faults` takes a fault (the teams service has one listener for all). */
export const faultUrls = (e: Estate): string[] => [...e.secrets.map((c) => c.url), ...e.agents.map((a) => a.url), e.teamsUrl];

/** Turns `faults` on at every simulator of the estate, or every fault off with `undefined`. */
export const setFaults = (e: Estate, faults: object | undefined) =>
  Promise.all(faultUrls(e).map((u) => http(`${u}/_sim/faults`, faults ? { method: 'POST', body: JSON.stringify(faults) } : { method: 'DELETE' })));

/**
 * The simulators of a 3x estate share one process and, on a loaded machine, answer a 15,000-member
 * pool in more than the default 5 s: a timeout there would measure the simulator, not vigil.
 */
const TIMEOUT = '30s';

/** A schedule that never fires during a run: the benchmark drives collections with POST /-/collect. */
const NEVER = '0 0 0 1 1 *';

/**
 * vigil watching the whole estate with the defaults an operator would keep (the node and workload
 * listings on the first LISTING_AGENTS agents, the servers), except: schedules are
 * the benchmark's, the agents' client-node and workload listings' included (by default never, collections driven
 * by POST /-/collect; the soak gives every target one that fires), and the teams service's rate limit is raised so a listing measures
 * vigil, not the limit.
 */
/** Endpoints of the estate left unpolled, to measure what each costs (`endpoint-shares.ts`). */
export interface Without {
  /** The secrets clusters' token: its lookup and the audited request. */
  secretsToken?: boolean;
  /** The node poll of each secrets cluster (its nodes' health, seal status, HA status, autopilot, leader). */
  secretsNodes?: boolean;
  /** The gossip members of the server agents. */
  members?: boolean;
  /** The client-node listing. */
  nodes?: boolean;
  /** The jobs, evaluations and deployments listings. */
  workload?: boolean;
}

export function vigilConfig(e: Estate, listen: string, schedule = NEVER, only?: ReadonlySet<string>, without: Without = {}): string {
  const lines = [`web:\n  listen_address: ${listen}`];
  const section = (key: string, entries: string[]) => {
    if (!only || only.has(key)) lines.push(`${key}:`, ...entries);
  };
  section(
    'secrets',
    e.secrets.map((c) => {
      const token = without.secretsToken ? '' : `\n    token_file: ${c.tokenFile}`;
      const nodes = without.secretsNodes ? '\n    nodes:\n      enabled: false' : '';
      return `  - name: ${c.name}\n    address: ${c.url}${token}\n    schedule: "${schedule}"\n    timeout: ${TIMEOUT}${nodes}`;
    }),
  );
  // The client-node listing has a schedule of its own (every 30 s by default): it is the benchmark's too.
  section(
    'agents',
    e.agents.map((a, i) => {
      const nodes = i >= LISTING_AGENTS || without.nodes ? '\n    nodes: false' : '';
      const workload = i >= LISTING_AGENTS || without.workload ? '\n    jobs: false\n    evaluations: false\n    deployments: false' : '';
      const listings = `${nodes}${workload}${without.members ? '\n    members: false' : ''}`;
      return `  - name: ${a.name}\n    address: ${a.url}\n    token_file: ${e.agentTokenFile}\n    schedule: "${schedule}"\n    nodes_schedule: "${schedule}"\n    workload:\n      schedule: "${schedule}"\n    timeout: ${TIMEOUT}${listings}`;
    }),
  );
  section(
    'teams',
    e.organizations.map(
      (o) =>
        `  - name: ${o.name}\n    address: ${e.teamsUrl}\n    organization: ${o.name}\n    token_file: ${o.tokenFile}\n    schedule: "${schedule}"\n    requests_per_second: 1000`,
    ),
  );
  return `${lines.join('\n')}\n`;
}
