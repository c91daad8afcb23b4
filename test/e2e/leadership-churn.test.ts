import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { startPrometheus, type Service } from '../helpers/processes.js';
import { deployedPrometheus, writeScaledRules } from '../helpers/shipped-alerting.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

/**
 * SecretsLeadershipChurn live, as shipped: two vigils poll the nodes of two clusters of three, a
 * real Prometheus scrapes both and runs alerts/ as shipped, and the leadership of a cluster moves
 * four times, each move held for two node polls (as the demo's fault does: moves faster than the
 * poll are seen as fewer, docs/runbooks.md#secretsleadershipchurn). `early` moves before
 * Prometheus first scrapes the vigils (increase() alone would take the 4 as its baseline and never
 * warn), `late` while it scrapes them. The warning must come every time.
 */
const NODE_POLL_S = 2;
const CLUSTERS = ['early', 'late'];
let secrets: SecretsSimulator;
let vigils: TestDaemon[] = [];
let prometheus: Service;

function config(): string {
  const target = (name: string) => {
    const token = tempFile(`${name}-token`, secrets.cluster(name).rootToken);
    const every = `"*/${NODE_POLL_S} * * * * *"`;
    return `  - { name: ${name}, address: "${secrets.cluster(name).url}", token_file: ${token}, schedule: ${every}, timeout: 1s, nodes: { schedule: ${every} } }`;
  };
  return ['secrets:', ...CLUSTERS.map(target), ''].join('\n');
}

type Sample = { metric: Record<string, string>; value: [number, string] };
async function query(expr: string): Promise<Sample[]> {
  const res = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
  return ((await res.json()) as { data: { result: Sample[] } }).data.result;
}

const changesSeen = (cluster: string) =>
  Promise.all(vigils.map(async (v) => (await v.metrics()).get(`secrets_active_node_changes_total{target="${cluster}"}`)));

/** Four moves of the cluster's leadership, each held for two node polls; both vigils count four. */
async function churn(cluster: string): Promise<void> {
  await waitFor(`both vigils polling the nodes of ${cluster}`, async () => ((await changesSeen(cluster)).every((n) => n === 0) ? true : undefined), 20_000);
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${secrets.cluster(cluster).url}/_sim/leader`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 2 * NODE_POLL_S * 1000 + 500));
  }
  expect(await changesSeen(cluster)).toEqual([4, 4]);
}

async function firing(cluster: string): Promise<Sample[]> {
  return waitFor(
    `SecretsLeadershipChurn firing for ${cluster}`,
    async () => {
      const alerts = await query(`ALERTS{alertname="SecretsLeadershipChurn", alertstate="firing", target="${cluster}"}`);
      return alerts.length ? alerts : undefined;
    },
    30_000,
  ).catch(async (e: Error) => {
    const counters = await query(`secrets_active_node_changes_total{target="${cluster}"}`);
    const increase = await query(`increase(secrets_active_node_changes_total{target="${cluster}"}[1h])`);
    throw new Error(
      `${e.message}; counters ${JSON.stringify(counters.map((r) => r.value[1]))}, increase over 1h ${JSON.stringify(increase.map((r) => r.value[1]))}`,
    );
  });
}

beforeAll(async () => {
  secrets = await startSecretsSimulator({ clusters: CLUSTERS.map((name) => ({ name, nodes: 3 })) });
  vigils = await Promise.all([startTestDaemon(config()), startTestDaemon(config())]);
  await churn('early');
  prometheus = await startPrometheus(
    deployedPrometheus({
      targets: vigils.map((v) => new URL(v.url).host),
      ruleGlob: writeScaledRules(tempDir('vigil-churn-rules-'), 10),
      // No Alertmanager: the rule's state in Prometheus is what is under test.
      alertmanager: '127.0.0.1:9',
      interval: '1s',
    }),
  );
}, 90_000);

afterAll(async () => {
  await prometheus?.stop();
  await Promise.all(vigils.map((v) => v.close()));
  await secrets?.close();
}, 30_000);

describe('SecretsLeadershipChurn, live on the shipped rules', () => {
  it('warns of four changes counted before Prometheus first scraped the counter', async () => {
    expect(await firing('early')).toHaveLength(1);
  }, 40_000);

  it('warns of four changes while Prometheus scrapes both vigils', async () => {
    await waitFor(
      'both vigils’ counters of late in Prometheus',
      async () => ((await query('secrets_active_node_changes_total{target="late"} == 0')).length === 2 ? true : undefined),
      20_000,
    );
    await churn('late');
    expect(await firing('late')).toHaveLength(1);
  }, 90_000);
});
