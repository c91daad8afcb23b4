/**
 * What sharding saves the upstreams (issue 26): requests each secrets cluster, agent and teams
 * organization receives per collection interval with 1, 2 and 3 vigil replicas, unsharded (each
 * replica polls every target, as before) and sharded (`--total-shards=N --shard=K`), counted at the
 * simulators; and how many targets move when the shard count changes, jump hash against the
 * modulo (`hash % N`) that kube-state-metrics uses.
 *
 *   npm run bench:shards
 *
 * Everything listens on 127.0.0.1; every vigil is the build (`dist/main.js`), ended by PID.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shardOf } from '../src/config/sharding.js';
import { startAgentSimulator, type AgentSimulator } from '../simulators/agent/index.js';
import { startSecretsSimulator, type SecretsSimulator } from '../simulators/secrets/index.js';
import { startTeamsSimulator, type TeamsSimulator } from '../simulators/teams/index.js';
import { spawnVigil, type VigilProcess } from '../test/helpers/process.js';
import { waitFor } from '../test/helpers/wait.js';
import { machine, printTable, writeResult, type Row } from './scale/report.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SIZE = { secrets: 30, agents: 30, teams: 6 };
const YEARLY = '0 0 0 1 1 *';

interface Estate {
  secrets: SecretsSimulator;
  agents: AgentSimulator;
  teams: TeamsSimulator;
  config: string;
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);

async function startEstate(dir: string): Promise<Estate> {
  const secrets = await startSecretsSimulator({ clusters: names('cluster', SIZE.secrets).map((name) => ({ name })) });
  const agents = await startAgentSimulator({
    agents: names('agent', SIZE.agents).map((name) => ({ name, role: 'both' as const, members: 3 })),
    acl: { enabled: false },
  });
  const orgs = names('org', SIZE.teams);
  const teams = await startTeamsSimulator({ organizations: orgs.map((name, seed) => ({ name, teams: 40, seed })) });
  const tokens = orgs.map((o) => {
    const f = join(dir, `${o}.token`);
    writeFileSync(f, teams.ownerToken(o));
    return f;
  });
  const config = join(dir, 'vigil.yml');
  writeFileSync(
    config,
    [
      'secrets:',
      ...[...secrets.clusters.values()].map((c) => `  - { name: ${c.name}, address: "${c.url}", schedule: "${YEARLY}" }`),
      'agents:',
      ...[...agents.agents.values()].map((a) => `  - { name: ${a.name}, address: "${a.url}", schedule: "${YEARLY}" }`),
      'teams:',
      ...orgs.map((o, i) => `  - { name: ${o}, address: "${teams.url}", organization: ${o}, token_file: ${tokens[i]}, schedule: "${YEARLY}" }`),
      '',
    ].join('\n'),
  );
  return { secrets, agents, teams, config };
}

const requests = (e: Estate) => ({
  secrets: [...e.secrets.clusters.values()].map((c) => c.requests()),
  agents: [...e.agents.agents.values()].map((a) => a.requests()),
  teams: [e.teams.requests()],
});

/** One collection interval of `replicas` vigils (each runs every job of its shard once): requests per upstream target. */
async function interval(e: Estate, replicas: number, sharded: boolean): Promise<Row> {
  const vigils: VigilProcess[] = [];
  try {
    for (let k = 0; k < replicas; k++) {
      const args = ['--web.enable-lifecycle', '--web.collect-min-interval=0s', ...(sharded ? [`--total-shards=${replicas}`, `--shard=${k}`] : [])];
      const v = await spawnVigil(e.config, { built: { root: ROOT }, readyOn: 'vigil listening', args, timeoutMs: 60_000 });
      vigils.push(v);
      await waitFor(`vigil ${k} ready`, async () => ((await fetch(`${v.url}/readyz`)).ok ? true : undefined), 60_000);
    }
    const before = requests(e);
    await Promise.all(vigils.map(async (v) => (await fetch(`${v.url}/-/collect`, { method: 'POST' })).text()));
    const after = requests(e);
    const per = (k: keyof typeof before, targets: number) => {
      const d = after[k].map((n, i) => n - before[k][i]!);
      return { total: d.reduce((a, b) => a + b, 0), each: d.reduce((a, b) => a + b, 0) / targets, max: Math.max(...d) };
    };
    const [s, a, t] = [per('secrets', SIZE.secrets), per('agents', SIZE.agents), per('teams', SIZE.teams)];
    return {
      replicas,
      mode: sharded ? 'sharded' : 'every replica polls all',
      'secrets req/cluster': s.each.toFixed(1),
      'agents req/agent': a.each.toFixed(1),
      'teams req/org': t.each.toFixed(1),
      'all requests': s.total + a.total + t.total,
    };
  } finally {
    for (const v of vigils) v.child.kill('SIGKILL');
  }
}

/** Share of targets that change shard from n to n+1 shards, with the jump hash and with a modulo of the same hash. */
function moves(keys: readonly string[]): Row[] {
  const h = (k: string) => createHash('sha256').update(k).digest().readBigUInt64BE(0);
  const pct = (x: number) => `${((100 * x) / keys.length).toFixed(1)}%`;
  return [1, 2, 3, 4, 5, 9].map((n) => {
    const jump = keys.filter((k) => shardOf(k, n) !== shardOf(k, n + 1)).length;
    const modulo = keys.filter((k) => Number(h(k) % BigInt(n)) !== Number(h(k) % BigInt(n + 1))).length;
    return {
      'shards n → n+1': `${n} → ${n + 1}`,
      'least possible': pct(keys.length / (n + 1)),
      'jump hash (vigil)': pct(jump),
      'modulo (hash % n)': pct(modulo),
    };
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-shard-load-'));
  const estate = await startEstate(dir);
  try {
    const rows: Row[] = [];
    for (const replicas of [1, 2, 3]) for (const sharded of replicas === 1 ? [false] : [false, true]) rows.push(await interval(estate, replicas, sharded));
    printTable(`Upstream requests per collection interval (${SIZE.secrets} clusters, ${SIZE.agents} agents, ${SIZE.teams} organizations)`, rows);
    const moved = moves(names('target', 10_000));
    printTable('Targets moved when a shard is added (10,000 names)', moved);
    const about = { machine: machine(), estate: SIZE };
    writeResult(join(ROOT, 'bench/results'), 'shard-load', about, rows);
    writeResult(join(ROOT, 'bench/results'), 'shard-moves', about, moved);
  } finally {
    await Promise.all([estate.secrets.close(), estate.agents.close(), estate.teams.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
