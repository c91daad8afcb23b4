import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgentScenario, startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { startAlertingStack, type AlertingStack } from '../helpers/alerting-stack.js';
import { tempFile } from '../helpers/daemon.js';
import { notified, type Posted } from '../helpers/stand-in-receiver.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A scheduling region's workload end to end, as paging.test.ts drives its faults: a region whose
 * two agents both list its jobs (one vigil, the shipped rules and routing in a real Prometheus and
 * Alertmanager, every `for:` a tenth). A service job failing in a loop pages once; a failed
 * deployment that left its job short pages once; a job queued with some running warns (the sink,
 * not the pager); a batch job's failed run and the healthy jobs page nobody.
 */
let agents: AgentSimulator;
let stack: AlertingStack;

const post = async (path: string, body: object) => {
  const res = await fetch(`${agents.agent('server-1').url}/_sim/${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
};
const names = (posts: readonly Posted[]) =>
  [
    ...new Set(
      posts.flatMap((p) =>
        p.alerts.filter((a) => a.status === 'firing').map((a) => `${a.labels.alertname} ${a.labels.namespace ?? ''}/${a.labels.job_id ?? ''}`),
      ),
    ),
  ].sort();

beforeAll(async () => {
  agents = await startAgentSimulator(demoAgentScenario());
  const token = tempFile('agent-token', agents.readToken);
  const target = (name: string) =>
    `  - { name: ${name}, address: "${agents.agent(name).url}", token_file: ${token}, schedule: "*/2 * * * * *", timeout: 1s, nodes: false, workload: { schedule: "*/2 * * * * *" } }\n`;
  stack = await startAlertingStack(`agents:\n${target('server-1')}${target('client-1')}`);
}, 180_000);

afterAll(() => Promise.all([stack?.stop(), agents?.close()]), 60_000);

describe("a region's workload", () => {
  it('pages once for a crash loop and for a failed deployment left short, warns for queued allocations, and pages nobody for a batch run or the healthy jobs', async () => {
    await waitFor(
      "the region's jobs listed by both agents",
      async () => ((await stack.query('count(scheduler_jobs_listing_pages)')).at(0) === '2' ? true : undefined),
      60_000,
      { describeFailure: stack.state },
    );
    await post('jobs/default/web/fail', { every_ms: 500 });
    await post('jobs/payments/ledger/deployment', { status: 'failed', healthy: 1 });
    await post('jobs/default/api/queue', { queued: 2, running: 1 });
    await post('jobs', { id: 'etl', namespace: 'payments', type: 'batch', groups: { load: 1 }, outcome: 'failed' });
    await waitFor(
      'the crash loop and the failed deployment at the pager, the queued job at the sink',
      async () =>
        notified(stack.pager, 'SchedulerJobFailing', { namespace: 'default', job_id: 'web' }) &&
        notified(stack.pager, 'SchedulerDeploymentBelowDesired', { namespace: 'payments', job_id: 'ledger' }) &&
        notified(stack.sink, 'SchedulerJobAllocationsQueued', { namespace: 'default', job_id: 'api' })
          ? true
          : undefined,
      180_000,
      { describeFailure: stack.state },
    );
    await new Promise((r) => setTimeout(r, 15_000));
    // One page per job and cause: two agents list the region, the rules count it once.
    expect(names(stack.pager)).toEqual(['SchedulerDeploymentBelowDesired payments/ledger', 'SchedulerJobFailing default/web']);
    const failing = stack.pager.flatMap((p) => p.alerts).filter((a) => a.labels.alertname === 'SchedulerJobFailing' && a.status === 'firing');
    expect(new Set(failing.map((a) => JSON.stringify(a.labels))).size).toBe(1);
    expect(failing[0]?.labels).toMatchObject({ region: 'global', severity: 'critical' });
    expect(failing[0]?.labels.target).toBeUndefined();
    expect(names(stack.sink).filter((n) => n.startsWith('Scheduler'))).toEqual([
      'SchedulerDeploymentBelowDesired payments/ledger',
      'SchedulerJobAllocationsQueued default/api',
      'SchedulerJobFailing default/web',
    ]);
    // The failed batch run is counted, and raises nothing.
    expect(await stack.query('max(scheduler_allocations{namespace="payments",type="batch",state="failed"})')).toEqual(['1']);
    const firing = await stack.query('count by (alertname) (ALERTS{alertstate="firing",alertname=~"Scheduler.*"})');
    expect(firing).toHaveLength(3);
  }, 420_000);
});
