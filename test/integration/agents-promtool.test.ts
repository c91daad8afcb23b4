import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { admin } from '../helpers/agent-sim.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';

const PROMTOOL = '/usr/bin/promtool';

/** Pipes `text` into `promtool check metrics`; resolves with its exit code and everything it printed. */
function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(PROMTOOL, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'], timeout: 15_000 });
    let output = '';
    p.stdout.on('data', (c: Buffer) => (output += c.toString()));
    p.stderr.on('data', (c: Buffer) => (output += c.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, output }));
    p.stdin.end(text);
  });
}

describe('promtool check metrics on /metrics with agents configured', () => {
  let sim: AgentSimulator;
  let d: TestDaemon;

  beforeAll(async () => {
    sim = await startAgentSimulator({
      agents: [
        { name: 'leader-1', role: 'server', members: 6 },
        { name: 'client-1', role: 'client', servers: ['10.0.0.11:4647'], allocations: 2 },
        { name: 'both-1', role: 'both' },
      ],
      acl: { enabled: true },
    });
    // Every kind of series: an unknown member status, an unhealthy part, a capped pool, a failing target.
    await admin(sim, 'leader-1', 'members/server-2', { status: 'failed' });
    await admin(sim, 'leader-1', 'members/server-3', { status: 'leaving' });
    await admin(sim, 'both-1', 'health', { client: { ok: false, message: 'no servers' } });
    const token = tempFile('agent-token', sim.readToken);
    const t = (name: string, agent: string, extra = '') =>
      `  - { name: ${name}, address: "${sim.agent(agent).url}", token_file: "${token}", schedule: "${NEVER}", host: true${extra} }\n`;
    d = await startTestDaemon(
      `agents:\n${t('leader', 'leader-1')}${t('capped', 'leader-1', ', max_members: 2')}${t('client', 'client-1')}${t('both', 'both-1')}` +
        `  - { name: down, address: "http://127.0.0.1:9", schedule: "${NEVER}", timeout: 500ms }\n`,
    );
    await d.collect();
  });
  afterAll(async () => {
    await d?.close();
    await sim?.close();
  });

  it('passes with exit 0 and no output', async () => {
    if (!existsSync(PROMTOOL)) throw new Error('promtool not found: apt-get install prometheus');
    const text = await d.scrape();
    expect(text).toContain('scheduler_agent_member_status{');
    expect(text).toContain('scheduler_agent_up{target="down"} 0');
    const { code, output } = await promtoolCheck(text);
    expect(output).toBe('');
    expect(code).toBe(0);
  });
});
