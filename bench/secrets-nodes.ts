/**
 * What polling every node of the secrets clusters costs vigil and the upstreams: the same estate of
 * clusters collected with the node poll off, with three nodes per cluster (with and without each
 * node's seal backend status, the audited request at the address only, at each node, or off, and
 * with two automated snapshot configurations) and with five, on the
 * daemon's own path (the collectors' jobs built from a config), against the secrets simulator in a
 * process of its own (so the CPU measured is vigil's alone). One run compares the three: CPU per
 * collection, heap after, and requests per collection interval (vigil's own request telemetry).
 *
 *   node --import tsx bench/secrets-nodes.ts [clusters=60] [rounds=20]
 */
import { buildJobs, collectorStates } from '../src/collectors/index.js';
import { collectionOffloadPool } from '../src/collectors/decoding.js';
import { parseConfig } from '../src/config/load.js';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countLines } from '../src/metrics/encoded-lines.js';
import { jobContext } from '../src/jobs/job-context.js';
import { NEVER } from '../test/helpers/schedules.js';

const CLUSTERS = Number(process.argv[2] ?? 60);
const ROUNDS = Number(process.argv[3] ?? 20);
const offload = collectionOffloadPool(1);
const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-nodes-'));
const tempFile = (name: string, content: string) => (writeFileSync(join(dir, name), content), join(dir, name));

interface Row {
  estate: string;
  'CPU ms / collection': string;
  'CPU ratio': string;
  'heap MiB after': string;
  'requests / interval': number;
  'requests / cluster': string;
  'series / cluster': string;
}

/** The secrets simulator in a child process, with `clusters` of `nodes` each: their addresses and root tokens. */
async function simulator(nodes: number): Promise<{ clusters: Array<{ name: string; url: string; token: string }>; close: () => void }> {
  const scenario = tempFile(
    `scenario-${nodes}.json`,
    JSON.stringify({ clusters: Array.from({ length: CLUSTERS }, (_, i) => ({ name: `c${i}`, nodes, snapshots: [{ name: 'hourly' }, { name: 'daily' }] })) }),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'simulators/secrets/main.ts', `--scenario=${scenario}`, '--port=0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const clusters: Array<{ name: string; url: string; token: string }> = [];
  for await (const line of createInterface({ input: child.stdout })) {
    const [name, url, token] = line.split(' ');
    clusters.push({ name: name!, url: url!, token: token!.replace('root_token=', '') });
    if (clusters.length === CLUSTERS) break;
  }
  return { clusters, close: () => void child.kill('SIGTERM') };
}

/** Requests vigil sent, as its own telemetry counts them (every endpoint, every code). */
const sentBy = (ctx: ReturnType<typeof jobContext>): number =>
  [...ctx.upstreamStats.values()].reduce((n, s) => n + [...s.latency.values()].reduce((m, h) => m + h.count, 0), 0);

/** What a run polls beyond the replication status: the audited request where (`address`: the default), the snapshots' statuses. */
interface Variant {
  sealBackends?: boolean;
  audit?: 'off' | 'address' | 'nodes';
  snapshots?: boolean;
}

/** The simulated nodes listen on loopback: the token may go to them. */
const TO_EVERY_NODE = ', send_token_to: ["127.0.0.1"]';

function clusterYaml(c: { name: string; url: string }, token: string, nodes: number | 'off', v: Variant): string {
  const audit = v.audit ?? 'address';
  const check = audit === 'off' ? 'audit_check: { enabled: false }' : `audit_check: { timeout: 3s${audit === 'nodes' ? TO_EVERY_NODE : ''} }`;
  const snapshots = v.snapshots ? ', snapshots: { names: [hourly, daily], schedule: "* * * * *" }' : '';
  return `  - { name: ${c.name}, address: "${c.url}", token_file: "${token}", schedule: "${NEVER}", replication_kinds: [performance, dr], seal_backends: ${v.sealBackends ?? true}, nodes: { enabled: ${nodes !== 'off'}, ${check} }${snapshots} }`;
}

const label = (nodes: number | 'off', v: Variant): string =>
  nodes === 'off'
    ? `${CLUSTERS} clusters, node poll off`
    : [
        `${CLUSTERS} clusters x ${nodes} nodes`,
        v.sealBackends === false ? 'seal_backends off' : '',
        v.audit === 'off' ? 'audit check off' : v.audit === 'nodes' ? 'audit check at each node' : '',
        v.snapshots ? '2 snapshots' : '',
      ]
        .filter(Boolean)
        .join(', ');

async function measure(nodes: number | 'off', v: Variant = {}): Promise<Omit<Row, 'CPU ratio'> & { cpu: number }> {
  const sim = await simulator(nodes === 'off' ? 1 : nodes);
  try {
    const yaml = 'secrets:\n' + sim.clusters.map((c) => clusterYaml(c, tempFile(`${c.name}-token`, c.token), nodes, v)).join('\n');
    const ctx = jobContext(offload);
    const jobs = buildJobs(parseConfig(yaml, 'bench'), ctx, collectorStates());
    const round = async () => (await Promise.all(jobs.map((j) => j.run(AbortSignal.timeout(30_000))))).flat();
    await round(); // warm up: pools connected, code compiled
    const before = sentBy(ctx);
    let lines = 0;
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < ROUNDS; i++)
      lines = (await round()).reduce((n, o) => n + [...o.group.values()].reduce((m, g) => m + (typeof g === 'string' ? countLines(g) : g.lines), 0), 0);
    const cpu = process.cpuUsage(cpu0);
    const sent = sentBy(ctx) - before;
    global.gc?.();
    const heap = process.memoryUsage().heapUsed;
    await Promise.all(ctx.clients.map((c) => c.close()));
    return {
      estate: label(nodes, v),
      cpu: (cpu.user + cpu.system) / 1000 / ROUNDS,
      'CPU ms / collection': ((cpu.user + cpu.system) / 1000 / ROUNDS).toFixed(1),
      'heap MiB after': (heap / 2 ** 20).toFixed(1),
      'requests / interval': sent / ROUNDS,
      'requests / cluster': (sent / ROUNDS / CLUSTERS).toFixed(1),
      'series / cluster': (lines / CLUSTERS).toFixed(0),
    };
  } finally {
    sim.close();
  }
}

const off = await measure('off');
const variants = [
  await measure(3, { sealBackends: false, audit: 'off' }),
  await measure(3, { audit: 'off' }),
  await measure(3),
  await measure(3, { audit: 'nodes' }),
  await measure(3, { snapshots: true }),
  await measure(5),
];
const rows: Row[] = [off, ...variants].map(({ cpu, ...r }) => ({ ...r, 'CPU ratio': (cpu / off.cpu).toFixed(2) }));
console.table(rows);
await offload.close();
rmSync(dir, { recursive: true, force: true });
