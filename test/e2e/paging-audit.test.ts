import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startAlertingStack, type AlertingStack } from '../helpers/alerting-stack.js';
import { tempFile } from '../helpers/daemon.js';
import { notified } from '../helpers/stand-in-receiver.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Blocked audit devices end to end, as paging.test.ts drives its faults: a cluster of three whose
 * active node's audited requests hang while every node answers sys/health 200, one vigil, the shipped
 * rules and routing in a real Prometheus and Alertmanager, a stand-in pager. It pages once, for its
 * cause; a healthy cluster, and one whose token is refused its lookup (403), page nobody.
 */
let secrets: SecretsSimulator;
let stack: AlertingStack;

const post = async (cluster: string, path: string, body: unknown) => {
  const res = await fetch(`${secrets.cluster(cluster).url}/_sim/${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
};

beforeAll(async () => {
  secrets = await startSecretsSimulator({ clusters: [{ name: 'blocked' }, { name: 'calm' }] }, { walTickMs: 3_600_000 });
  const token = (c: string) => tempFile(`${c}-token`, secrets.cluster(c).rootToken);
  const common = 'schedule: "*/2 * * * * *", timeout: 1s, replication_kinds: [dr]';
  const audit = 'nodes: { audit_check: { timeout: 500ms, send_token_to: ["127.0.0.1"] } }';
  stack = await startAlertingStack(
    'secrets:\n' +
      `  - { name: blocked, address: "${secrets.cluster('blocked').url}", token_file: ${token('blocked')}, ${common}, ${audit} }\n` +
      `  - { name: calm, address: "${secrets.cluster('calm').url}", token_file: ${token('calm')}, ${common}, ${audit} }\n` +
      `  - { name: refused, address: "${secrets.cluster('calm').url}", token_file: ${tempFile('wrong-token', 'not-a-token')}, ${common}, ${audit} }\n`,
  );
}, 180_000);

afterAll(() => Promise.all([stack?.stop(), secrets?.close()]), 60_000);

describe('audit devices that block the active node', () => {
  it('page SecretsRequestsBlocked once, never SecretsServiceDown, and nothing for the healthy and refused clusters', async () => {
    await waitFor('every cluster read as serving', async () => ((await stack.query('secrets_requests_blocked == 0')).length === 3 ? true : undefined), 60_000, {
      describeFailure: stack.state,
    });
    await post('blocked', 'nodes/node-1', { audit: 'hang' });
    await waitFor(
      'SecretsRequestsBlocked at the pager',
      async () => (notified(stack.pager, 'SecretsRequestsBlocked', { target: 'blocked' }) ? true : undefined),
      150_000,
      {
        describeFailure: stack.state,
      },
    );
    // As long again as the page took: SecretsServiceDown's `for` has passed, and it stays out.
    await new Promise((r) => setTimeout(r, 30_000));
    const paged = new Set(stack.pager.flatMap((p) => p.alerts).map((a) => `${a.labels.alertname} ${a.labels.target ?? ''}`));
    expect([...paged]).toEqual(['SecretsRequestsBlocked blocked']);
    expect(await stack.query('secrets_node_requests_blocked{target="blocked"} == 1')).toEqual(['1', '1']);
    // vigil's own view says why: its collection of the cluster times out (inhibited), its nodes answer.
    expect(await stack.query('max(vigil_collector_failing{target="blocked",collector="secrets_replication",reason="timeout"})')).toEqual(['1']);
    expect(await stack.query('min(secrets_node_up{target="blocked"})')).toEqual(['1']);
  }, 330_000);
});
