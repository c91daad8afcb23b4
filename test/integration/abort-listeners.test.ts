import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series } from '../helpers/exposition.js';

/**
 * Many requests in flight at once (teams shown four at a time per target, every agent endpoint
 * polled together, several targets) must not pile listeners onto one long-lived AbortSignal: Node
 * warns past 10 (`MaxListenersExceededWarning ... abort listeners added to [AbortSignal]`), and a
 * signal every request subscribes to is how a real leak would start.
 */
let teams: TeamsSimulator;
let agents: AgentSimulator;
let d: TestDaemon;
const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);

beforeAll(async () => {
  process.on('warning', onWarning);
  teams = await startTeamsSimulator({
    organizations: Array.from({ length: 4 }, (_, i) => ({ name: `org-${i}`, teams: 60, seed: i + 1 })),
    rateLimit: { perSecond: 100_000 },
  });
  agents = await startAgentSimulator({
    agents: Array.from({ length: 6 }, (_, i) => ({ name: `server-${i}`, role: 'server' as const, members: 20 })),
  });
  const teamTargets = Array.from(
    { length: 4 },
    (_, i) => `  - name: org-${i}
    address: ${teams.url}
    organization: org-${i}
    token_file: ${tempFile('token', teams.ownerToken(`org-${i}`))}
    schedule: "${NEVER}"
    complete_access: true
    requests_per_second: 400
`,
  );
  const agentTargets = [...agents.agents.values()].map(
    (a) => `  - name: ${a.name}
    address: ${a.url}
    token_file: ${tempFile('token', agents.managementToken)}
    schedule: "${NEVER}"
`,
  );
  d = await startTestDaemon(`teams:\n${teamTargets.join('')}agents:\n${agentTargets.join('')}`);
}, 60_000);

afterAll(async () => {
  process.off('warning', onWarning);
  await d?.close();
  await teams?.close();
  await agents?.close();
});

describe('concurrent upstream requests', () => {
  it('collect without a MaxListenersExceededWarning, run after run', async () => {
    for (let i = 0; i < 3; i++) await d.collect();
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
    const m = await d.metrics();
    for (let i = 0; i < 4; i++) expect(m.get(series('teams_up', { target: `org-${i}`, organization: `org-${i}` }))).toBe(1);
    for (let i = 0; i < 6; i++) expect(m.get(series('scheduler_agent_up', { target: `server-${i}` }))).toBe(1);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
  }, 120_000);
});
