import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startAlertingStack, type AlertingStack } from '../../simulators/alerting/stack.js';
import { freePort } from '../helpers/processes.js';
import { spawnVigil, type VigilProcess } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Three vigil replicas sharding 30 simulated secrets clusters, scraped by a real Prometheus with the
 * shipped rules and scrape job, paging through a real Alertmanager with the shipped routing (the
 * demo's alerting stack: durations divided by 10). Each cluster counts the requests it gets: each
 * is polled by one replica only. One replica is SIGKILLed: VigilShardMissing pages for its shard;
 * started again on the same address, the alert resolves and its targets are polled again.
 */
const TARGETS = 30;
const SHARDS = 3;
let secrets: SecretsSimulator;
const dir = tempDir('vigil-shards-');
let configFile: string;
let stack: AlertingStack | undefined;
const listen: string[] = [];
const replicas: Array<VigilProcess | undefined> = [];

async function startReplica(shard: number): Promise<VigilProcess> {
  const v = await spawnVigil(configFile, {
    timeoutMs: 60_000,
    listen: listen[shard]!,
    readyOn: 'vigil listening',
    args: [`--total-shards=${SHARDS}`, `--pod=vigil-${shard}`, '--web.enable-lifecycle', '--web.collect-min-interval=0s'],
  });
  replicas[shard] = v;
  await waitFor(`replica ${shard} ready`, async () => ((await fetch(`${v.url}/readyz`)).ok ? true : undefined), 60_000);
  return v;
}

/** Every cluster's request count, by name. */
const counts = () => new Map([...secrets.clusters.values()].map((c) => [c.name, c.requests()]));
const polledBy = async (v: VigilProcess) =>
  new Set(((await (await fetch(`${v.url}/api/v1/targets`)).json()) as { targets: Array<{ target: string }> }).targets.map((t) => t.target));
const collect = async (v: VigilProcess) => expect((await fetch(`${v.url}/-/collect`, { method: 'POST' })).status).toBe(200);
const firing = async (): Promise<Array<Record<string, string>>> => {
  const body = (await (await fetch(`${stack!.prometheus.url}/api/v1/alerts`)).json()) as {
    data: { alerts: Array<{ state: string; labels: Record<string, string> }> };
  };
  return body.data.alerts.filter((a) => a.state === 'firing' && a.labels.alertname === 'VigilShardMissing').map((a) => a.labels);
};

beforeAll(async () => {
  const names = Array.from({ length: TARGETS }, (_, i) => `cluster-${String(i).padStart(2, '0')}`);
  secrets = await startSecretsSimulator({ clusters: names.map((name) => ({ name })) });
  configFile = join(dir, 'vigil.yml');
  // Polled once at start and then only on /-/collect: the counts say who polled what.
  const targets = names.map((n) => `  - { name: ${n}, address: "${secrets.cluster(n).url}", replication_kinds: [dr], schedule: "0 0 0 1 1 *" }`);
  writeFileSync(configFile, ['secrets:', ...targets, ''].join('\n'));
  for (let i = 0; i < SHARDS; i++) listen.push(`127.0.0.1:${await freePort()}`);
  for (let i = 0; i < SHARDS; i++) await startReplica(i);

  stack = await startAlertingStack({ dir, vigil: listen[0]!, replicas: listen });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  for (const r of replicas) if (r && r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  await secrets?.close();
}, 60_000);

describe('three sharded replicas', () => {
  it('poll each of 30 targets once between them; a lost replica pages for its shard until it is back', async () => {
    const live = replicas as VigilProcess[];
    const owned = await Promise.all(live.map(polledBy));
    expect(owned.map((o) => o.size).reduce((a, b) => a + b)).toBe(TARGETS);
    expect(new Set(owned.flatMap((o) => [...o])).size).toBe(TARGETS);
    expect(owned.every((o) => o.size > 0)).toBe(true);

    // One start-up poll each, then one more for every /-/collect: every cluster alike, none twice.
    for (const v of live) await collect(v);
    const first = counts();
    const perPoll = first.get('cluster-00')! / 2;
    expect(perPoll).toBeGreaterThan(0);
    expect([...first.values()]).toEqual(new Array(TARGETS).fill(perPoll * 2));

    const query = async (q: string) =>
      (
        (await (await fetch(`${stack!.prometheus.url}/api/v1/query?query=${encodeURIComponent(q)}`)).json()) as {
          data: { result: Array<{ value: [number, string] }> };
        }
      ).data.result;
    await waitFor(
      'Prometheus scraping every replica',
      async () => ((await query('count(vigil_shard_ordinal)'))[0]?.value[1] === String(SHARDS) ? true : undefined),
      30_000,
    );
    expect(await firing()).toEqual([]);
    const lost = 1;
    live[lost]!.child.kill('SIGKILL');
    await exited(live[lost]!);
    const page = await waitFor('VigilShardMissing firing', async () => ((await firing()).length > 0 ? await firing() : undefined), 60_000);
    expect(page).toEqual([expect.objectContaining({ alertname: 'VigilShardMissing', severity: 'critical', job: 'vigil', shard: String(lost) })]);
    const paged = (status: string) =>
      stack!.pager
        .pages()
        .some((p) => p.alerts.some((a) => a.status === status && a.labels.alertname === 'VigilShardMissing' && a.labels.shard === String(lost)));
    await waitFor('the page at the stand-in pager', async () => (paged('firing') ? true : undefined), 60_000);

    // Nobody polls the lost shard meanwhile: its clusters' counts stand still while the others' move.
    for (const i of [0, 2]) await collect(live[i]!);
    const whileLost = counts();
    for (const [name, n] of whileLost) expect(n).toBe(owned[lost]!.has(name) ? perPoll * 2 : perPoll * 3);

    await startReplica(lost);
    await waitFor('VigilShardMissing resolved', async () => ((await firing()).length === 0 ? true : undefined), 60_000);
    await waitFor('the resolved page at the stand-in pager', async () => (paged('resolved') ? true : undefined), 60_000);
    expect(await polledBy(replicas[lost]!)).toEqual(owned[lost]);
    const back = counts();
    for (const n of back.values()) expect(n).toBe(perPoll * 3);
  }, 240_000);
});

const exited = (v: VigilProcess) => (v.child.exitCode !== null || v.child.signalCode !== null ? Promise.resolve() : once(v.child, 'exit'));
