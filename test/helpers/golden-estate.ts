import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { admin } from './agent-sim.js';
import { notification, post } from './alertmanager.js';
import { startTestDaemon, tempFile, type TestDaemon } from './daemon.js';
import { NEVER } from './schedules.js';

/**
 * The fixed estate whose whole /metrics body is committed (test/fixtures/golden/): every endpoint of
 * every collector answering, a few targets in the states worth a series of their own, and the alert sink
 * holding one notification. Everything random in the simulators stays out of the body: teams come
 * from a seed, the WAL never ticks, tokens appear in no label, and ports only in a node's address
 * (numbered by the normalizer).
 */
export interface GoldenEstate {
  /** GET /metrics in the classic text format, or in OpenMetrics. */
  scrape(format: GoldenFormat): Promise<string>;
  close(): Promise<void>;
}

export type GoldenFormat = 'text' | 'openmetrics';

/** The committed bodies, one per format. */
export const GOLDEN_FILES: Record<GoldenFormat, URL> = {
  text: new URL('../fixtures/golden/metrics.txt', import.meta.url),
  openmetrics: new URL('../fixtures/golden/metrics.om.txt', import.meta.url),
};

/** Writes a token file and remembers its directory, for close to remove. */
type TempFile = (name: string, content: string) => string;

const OPENMETRICS = 'application/openmetrics-text;version=1.0.0';
const DR_ATTEMPT = '/v1/sys/replication/dr/secondary/generate-operation-token/attempt';

async function call(url: string, method = 'POST', body: unknown = {}): Promise<void> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
}

/** DR and performance primaries with a secondary each (the primaries' nodes found, a standby sealed), a sealed standalone cluster, and one with automated snapshots (one failing). */
async function startSecrets(temp: TempFile): Promise<{ sim: SecretsSimulator; yaml: string }> {
  const scenario = demoSecretsScenario();
  scenario.clusters.push({ name: 'sealed' }, { name: 'backed', nodes: 1, snapshots: [{ name: 'daily', intervalSeconds: 86_400 }, { name: 'hourly' }] });
  const sim = await startSecretsSimulator(scenario, { walTickMs: 3_600_000 });
  const url = (name: string) => sim.cluster(name).url;
  await call(`${url('dr-secondary')}/_sim/replication/dr/merkle/corrupt`, 'POST', { tree: '1', tree_type: 'local', pages: { '2': [] } });
  await call(`${url('dr-secondary')}${DR_ATTEMPT}`);
  await call(`${url('sealed')}/_sim/seal`, 'POST', { sealed: true });
  // Automated snapshots: a daily one that succeeds, named, and an hourly one found by listing, failing.
  await call(`${url('backed')}/_sim/snapshots/hourly`, 'POST', { failing: true, attempts: 3 });
  const snapshots = `, replication_kinds: [dr], nodes: { enabled: false }, snapshots: { names: [daily], list: true, schedule: "${NEVER}" }`;
  const token = temp('dr-operation-token', sim.cluster('dr-secondary').drOperationToken());
  const merkle = `, merkle_check: { dr_operation_token_file: "${token}", schedule: "${NEVER}" }`;
  const t = (name: string, address: string, extra = '') => `  - { name: ${name}, address: "${address}", schedule: "${NEVER}"${extra} }\n`;
  // The primaries' tokens may read their HA status and autopilot: three nodes each, one of them a sealed standby;
  // the secondaries' targets have none, and are watched through their address alone (forbidden).
  const reads = (name: string) => `, token_file: "${temp(`${name}-token`, sim.cluster(name).rootToken)}"`;
  await call(`${url('perf-primary')}/_sim/nodes/node-2`, 'POST', { sealed: true });
  const yaml =
    `secrets:\n${t('dr-primary', url('dr-primary'), reads('dr-primary'))}${t('dr-secondary', url('dr-secondary'), merkle)}` +
    `${t('perf-primary', url('perf-primary'), reads('perf-primary'))}${t('perf-secondary', url('perf-secondary'))}${t('sealed', url('sealed'))}` +
    t('backed', url('backed'), `${reads('backed')}${snapshots}`) +
    t('unreachable', 'http://127.0.0.1:1');
  return { sim, yaml };
}

/** A server with a gossip pool (one member failed) and a client that knows a server, every endpoint on. */
async function startAgents(temp: TempFile): Promise<{ sim: AgentSimulator; yaml: string }> {
  const sim = await startAgentSimulator({
    agents: [
      { name: 'server-1', role: 'server', members: 5 },
      { name: 'client-1', role: 'client', servers: ['10.0.0.11:4647'], allocations: 2 },
    ],
    acl: { enabled: true },
  });
  await admin(sim, 'server-1', 'members/server-3', { status: 'failed' });
  const token = temp('agent-token', sim.readToken);
  const t = (name: string) =>
    // Every schedule NEVER, the node and workload listings' too: a default tick (every 30 s) that falls
    // while the settled runs are under way would count a skipped run.
    `  - { name: ${name}, address: "${sim.agent(name).url}", token_file: "${token}", schedule: "${NEVER}", nodes_schedule: "${NEVER}", workload: { schedule: "${NEVER}" }, members: true, servers: true, self: true, host: true }\n`;
  return { sim, yaml: `agents:\n${t('server-1')}${t('client-1')}` };
}

/** One organization of a dozen seeded teams, every team's access complete. */
async function startTeams(temp: TempFile): Promise<{ sim: TeamsSimulator; yaml: string }> {
  const sim = await startTeamsSimulator({ organizations: [{ name: 'acme', teams: 12, seed: 33 }], rateLimit: { perSecond: 100_000 } });
  const token = temp('teams-token', sim.ownerToken('acme'));
  const yaml =
    `teams:\n  - { name: acme, address: "${sim.url}", organization: acme, token_file: "${token}", schedule: "${NEVER}",` +
    ` complete_access: true, requests_per_second: 1000 }\n`;
  return { sim, yaml };
}

/** Starts the estate and vigil in this process, collects once and posts a Watchdog to the sink. */
export async function startGoldenEstate(): Promise<GoldenEstate> {
  const started: Array<{ close(): Promise<void> }> = [];
  const files: string[] = [];
  const temp: TempFile = (name, content) => {
    files.push(tempFile(name, content));
    return files.at(-1)!;
  };
  let vigil: TestDaemon | undefined;
  const close = async () => {
    await vigil?.close();
    await Promise.all(started.map((s) => s.close()));
    for (const f of files) rmSync(dirname(f), { recursive: true, force: true });
  };
  try {
    const parts = [await startSecrets(temp), await startAgents(temp), await startTeams(temp)];
    started.push(...parts.map((p) => p.sim));
    // Settled: every job has run exactly twice when the body is read, whichever answered first.
    vigil = await startTestDaemon(`alert_sink:\n  store: { path: ":memory:" }\n${parts.map((p) => p.yaml).join('')}`, { settle: true });
    const watchdog = notification({ receiver: 'watchdog', alerts: [{ alertname: 'Watchdog', severity: 'none', fingerprint: 'golden' }] });
    const { status } = await post(vigil.url, watchdog);
    if (status !== 200) throw new Error(`the sink answered the Watchdog with ${status}`);
  } catch (err) {
    await close();
    throw err;
  }
  const d = vigil;
  return {
    async scrape(format) {
      // The same path as TestDaemon.scrape (the sink's pending series rendered first), with the format asked for.
      await d.scrape();
      const res = await fetch(`${d.url}/metrics`, format === 'openmetrics' ? { headers: { accept: OPENMETRICS } } : {});
      return res.text();
    },
    close,
  };
}
