/**
 * Runs every simulator of the benchmark's estate in this process, on 127.0.0.1, and prints one line
 * `estate <json>` (an `Estate`) once all listen. SIGTERM closes them.
 *
 *   node --import tsx bench/scale/estate-main.ts --scale=0.1 --dir=/tmp/somewhere [--shape='{"servers":10}']
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startAgentSimulator, type AgentSpec } from '../../simulators/agent/index.js';
import { startSecretsSimulator, type ReplicationLink } from '../../simulators/secrets/index.js';
import { startTeamsSimulator } from '../../simulators/teams/index.js';
import { shapeAt, type Estate, type EstateShape } from './estate.js';
import { startRequestLog } from './request-log.js';

const { values } = parseArgs({ options: { scale: { type: 'string' }, dir: { type: 'string' }, shape: { type: 'string' } }, strict: true });
const shape = shapeAt(Number(values.scale), JSON.parse(values.shape ?? '{}') as Partial<EstateShape>);
const dir = values.dir ?? '.';
const host = '127.0.0.1';
const pad = (i: number) => String(i + 1).padStart(2, '0');

const pairs = Array.from({ length: shape.pairs }, (_, i) => ({ primary: `primary-${pad(i)}`, secondary: `secondary-${pad(i)}` }));
const secrets = await startSecretsSimulator(
  {
    clusters: pairs.flatMap((p) => [{ name: p.primary }, { name: p.secondary }]),
    replication: pairs.flatMap((p): ReplicationLink[] =>
      (['performance', 'dr'] as const).map((kind) => ({ kind, primary: p.primary, secondaries: [p.secondary] })),
    ),
  },
  { host },
);

const agentSpecs: AgentSpec[] = [
  ...Array.from({ length: shape.servers }, (_, i): AgentSpec => ({ name: `server-${pad(i)}`, role: 'server', members: shape.members })),
  ...Array.from({ length: shape.clients }, (_, i): AgentSpec => ({ name: `client-${pad(i)}`, role: 'client', allocations: 10 + i })),
];
const agents = await startAgentSimulator(
  {
    agents: agentSpecs,
    acl: { enabled: true },
    nodes: { count: shape.nodes, pools: ['default', 'gpu', 'batch', 'spot'], datacenters: ['dc1', 'dc2'], classes: ['', 'large'] },
    jobs: { count: shape.jobs, namespaces: ['default', 'payments', 'search', 'batch'] },
  },
  { host },
);

const organizations = Array.from({ length: shape.organizations }, (_, i) => ({ name: `org-${pad(i)}`, teams: shape.teams, seed: i + 1 }));
const teams = await startTeamsSimulator({ organizations, rateLimit: { perSecond: 100_000 } }, { host });

const secret = (name: string, value: string) => {
  const file = join(dir, name);
  writeFileSync(file, value, { mode: 0o600 });
  return file;
};
const estate: Estate = {
  shape,
  secrets: [...secrets.clusters.values()].map((c) => ({ name: c.name, url: c.url, tokenFile: secret(`secrets-token-${c.name}`, c.rootToken) })),
  agents: [...agents.agents.values()].map((a) => ({ name: a.name, url: a.url })),
  agentTokenFile: secret('agent-token', agents.readToken),
  teamsUrl: teams.url,
  organizations: organizations.map((o) => ({ name: o.name, tokenFile: secret(`teams-token-${o.name}`, teams.ownerToken(o.name)) })),
};
process.stdout.write(`estate ${JSON.stringify(estate)}\n`);
// The requests vigil sends, recorded on demand for the collection floor (request-log.ts)
await startRequestLog(dir);

process.once('SIGTERM', () => {
  void Promise.all([secrets.close(), agents.close(), teams.close()]).then(() => process.exit(0));
});
