import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { startAlertingStack, type AlertingStack } from '../helpers/alerting-stack.js';
import { tempFile } from '../helpers/daemon.js';
import { notified } from '../helpers/stand-in-receiver.js';
import { waitFor } from '../helpers/wait.js';

/**
 * vigil's own ACL token expiring on a cluster of 1.10.1 or later, whose agents then answer every
 * call that needs it 500 "rpc error: ACL token expired": it is vigil's operator's to fix, so the
 * shipped rules and routing in a real Prometheus and Alertmanager warn vigil's sink of the token and
 * page nobody (no SchedulerAgentDown, no critical at all), while the agents are well.
 */
const TARGET = 'leader';

let agents: AgentSimulator;
let stack: AlertingStack;

const expireIn = (seconds: number) =>
  fetch(`${agents.agent('server-1').url}/_sim/acl/read-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ expires_in_seconds: seconds, expired_status: 500 }),
  });

beforeAll(async () => {
  agents = await startAgentSimulator({ agents: [{ name: 'server-1', role: 'both', members: 3 }], acl: { enabled: true } });
  const token = tempFile('agent-token', agents.readToken);
  stack = await startAlertingStack(
    `agents:\n  - { name: ${TARGET}, address: "${agents.agent('server-1').url}", token_file: ${token}, schedule: "*/1 * * * * *", timeout: 800ms }\n`,
  );
}, 180_000);

afterAll(() => Promise.all([stack?.stop(), agents?.close()]), 60_000);

describe('an expired scheduler token (servers from 1.10.1)', () => {
  it('warns VigilSchedulerTokenExpired at vigil and pages nobody', async () => {
    // The rule reads the last expiry seen: let Prometheus see one, with the agent's identity, before it passes.
    expect((await expireIn(20)).status).toBe(200);
    const seen = `scheduler_agent_token_expiry_timestamp_seconds{target="${TARGET}"} and on (target) scheduler_agent_info`;
    await waitFor('the expiry and the identity in Prometheus', async () => ((await stack.query(seen)).length ? true : undefined), 15_000, {
      describeFailure: stack.state,
    });
    await waitFor('the agent refusing the expired token', async () => {
      const res = await fetch(`${agents.agent('server-1').url}/v1/agent/self`, { headers: { 'x-scheduler-token': agents.readToken } });
      return res.status === 500 ? true : undefined;
    });
    await waitFor('VigilSchedulerTokenExpired at vigil', async () => (notified(stack.sink, 'VigilSchedulerTokenExpired') ? true : undefined), 120_000, {
      describeFailure: stack.state,
    });
    // Longer than SchedulerAgentDown's `for:` (2m, here 12s) and the critical route's group_wait, from the first refusal.
    await new Promise((r) => setTimeout(r, 25_000));
    const failing = `vigil_collector_failing{collector="scheduler_agent",target="${TARGET}"}`;
    expect(await stack.query(`max_over_time(${failing.replace('}', ',reason=~"connect|timeout|http_5xx"}')}[10m])`), await stack.state()).toEqual([]);
    expect(await stack.query(`${failing.replace('}', ',reason="http_4xx"}')} == 1`)).toEqual(['1']);
    expect(await stack.query('ALERTS{severity="critical"}'), await stack.state()).toEqual([]);
    expect(stack.pager.flatMap((p) => p.alerts.map((a) => a.labels.alertname))).toEqual([]);
    const warning = stack.sink.flatMap((p) => p.alerts).find((a) => a.labels.alertname === 'VigilSchedulerTokenExpired');
    expect(warning?.labels.severity).toBe('warning');
  }, 240_000);
});
