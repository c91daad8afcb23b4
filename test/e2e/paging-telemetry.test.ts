import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgentScenario, startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { pointedTelemetryJob as pointed, telemetryJobs } from '../../simulators/alerting/telemetry-jobs.js';
import { startAlertingStack, type AlertingStack } from '../helpers/alerting-stack.js';
import { tempFile } from '../helpers/daemon.js';
import { notified, type Posted } from '../helpers/stand-in-receiver.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The optional rules on the upstreams' own telemetry, live: a real Prometheus scrapes vigil and,
 * beside it, every secrets node's sys/metrics and every agent's /v1/metrics directly, with the
 * telemetry jobs of deploy/prometheus/prometheus.yml as shipped (only addresses, scheme and token
 * files changed) and the rules of alerts/ and alerts/telemetry/ (`for:` divided by 10); the shipped
 * routing in a real Alertmanager. Blocked audit devices page once, SecretsRequestsBlocked, though
 * the cluster's own telemetry counts the failures; blocked evaluations of a region vigil does not
 * list warn from the telemetry; vigil's health of each node reaches the vault-mixin's names.
 */
let secrets: SecretsSimulator;
let agents: AgentSimulator;
let stack: AlertingStack;

const hostOf = (url: string) => new URL(url).host;
const names = (posts: readonly Posted[]) =>
  [
    ...new Set(
      posts.flatMap((p) => p.alerts.filter((a) => a.status === 'firing').map((a) => `${a.labels.alertname} ${a.labels.target ?? a.labels.region ?? ''}`)),
    ),
  ].sort();

beforeAll(async () => {
  secrets = await startSecretsSimulator({ clusters: [{ name: 'blocked' }] }, { walTickMs: 3_600_000 });
  agents = await startAgentSimulator(demoAgentScenario());
  const cluster = secrets.cluster('blocked');
  const token = tempFile('blocked-token', cluster.rootToken);
  const jobs = telemetryJobs();
  const job = (name: string) => jobs.find((j) => j.job_name === name)!;
  const common = 'schedule: "*/2 * * * * *", timeout: 1s, replication_kinds: [dr]';
  stack = await startAlertingStack(
    `secrets:\n  - { name: blocked, address: "${cluster.url}", token_file: ${token}, ${common}, nodes: { audit_check: { timeout: 500ms, send_token_to: ["127.0.0.1"] } } }\n`,
    10,
    {
      jobs: [
        pointed(job('secrets-telemetry'), [...cluster.nodes.values()].map(hostOf), { target: 'blocked' }, token),
        pointed(
          job('scheduler-telemetry'),
          [...agents.agents.values()].map((a) => hostOf(a.url)),
          { region: 'global' },
        ),
      ],
    },
  );
}, 180_000);

afterAll(() => Promise.all([stack?.stop(), secrets?.close(), agents?.close()]), 60_000);

describe("the upstreams' own telemetry beside vigil", () => {
  it('pages blocked audit devices once, warns of blocked evaluations from the telemetry, and gives the vault-mixin its health probe', async () => {
    await waitFor(
      'the telemetry scraped and the cluster read as serving',
      async () =>
        (await stack.query('count(up{job="secrets-telemetry"} == 1)')).at(0) === '3' &&
        (await stack.query('count(up{job="scheduler-telemetry"} == 1)')).at(0) === String(agents.agents.size) &&
        (await stack.query('secrets_requests_blocked == 0')).length === 1
          ? true
          : undefined,
      60_000,
      { describeFailure: stack.state },
    );
    // vigil's view of each node under the mixin's names, with the node's host:port as instance.
    await waitFor(
      'vault_health_status_code recorded',
      async () => ((await stack.query('count(vault_health_status_code)')).at(0) === '3' ? true : undefined),
      30_000,
      {
        describeFailure: stack.state,
      },
    );
    expect((await stack.query('vault_health_status_code{node="node-1"}')).map(Number)).toEqual([200]);
    expect((await stack.query(`vault_health_up{instance="${hostOf(secrets.cluster('blocked').nodes.get('node-2')!)}"}`)).map(Number)).toEqual([1]);

    const post = async (url: string, path: string, body: object) => {
      const res = await fetch(`${url}/_sim/${path}`, { method: 'POST', body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    };
    await post(secrets.cluster('blocked').url, 'nodes/node-1', { audit: 'hang' });
    await post(agents.agent('server-1').url, 'jobs/default/api/queue', { queued: 2, running: 0 });
    await waitFor(
      'SecretsRequestsBlocked at the pager, SchedulerBlockedEvaluations at the sink',
      async () =>
        notified(stack.pager, 'SecretsRequestsBlocked', { target: 'blocked' }) && notified(stack.sink, 'SchedulerBlockedEvaluations', { region: 'global' })
          ? true
          : undefined,
      240_000,
      { describeFailure: stack.state },
    );
    // The cluster's own telemetry saw the failures, Prometheus straight from the nodes.
    expect(Number((await stack.query('sum(increase(vault_audit_log_request_failure{target="blocked"}[5m]))')).at(0))).toBeGreaterThan(0);
    // Longer than SecretsAuditLogFailing's `for` (30 s here): it never reaches anyone beside the page.
    await new Promise((r) => setTimeout(r, 40_000));
    expect(names(stack.pager)).toEqual(['SecretsRequestsBlocked blocked']);
    expect(names(stack.sink).filter((n) => n.startsWith('SecretsAuditLogFailing'))).toEqual([]);
    expect(names(stack.sink)).toContain('SchedulerBlockedEvaluations global');
  }, 420_000);
});
