import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { admin } from '../helpers/agent-sim.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { parseExposition } from '../helpers/exposition.js';
import { ALERTS_DIR } from '../helpers/rules.js';
import { NEVER } from '../helpers/schedules.js';
import { tempDir } from '../helpers/temp-dir.js';
import { requireTool } from '../helpers/tools.js';

/**
 * vigil polling simulators whose tokens of 30 days expire in 2 days (two agents of one region, a
 * secrets cluster), beside controls (a root token, a token of 2 days just issued, a cluster without
 * ACLs): the scraped series, then the shipped token rules evaluated over them by
 * promtool, with the expiries moved to promtool's clock (which starts at the epoch).
 */
const DAY = 86_400;
let agents: AgentSimulator;
let open: AgentSimulator;
let secrets: SecretsSimulator;
let d: TestDaemon;
let text: string;

beforeAll(async () => {
  agents = await startAgentSimulator({
    agents: [
      { name: 'eu-1', role: 'both', region: 'eu' },
      { name: 'eu-2', role: 'server', region: 'eu' },
    ],
    acl: { enabled: true },
  });
  open = await startAgentSimulator({ agents: [{ name: 'us-1', role: 'both', region: 'us' }] });
  secrets = await startSecretsSimulator({ clusters: [{ name: 'expiring' }, { name: 'root' }, { name: 'fresh' }] }, { walTickMs: 3_600_000 });
  // Tokens of 30 days, 2 days from their end.
  await admin(agents, 'eu-1', 'acl/read-token', { expires_in_seconds: 2 * DAY, created_seconds_ago: 28 * DAY });
  const newToken = async (cluster: string, body: object): Promise<string> => {
    const res = await fetch(`${secrets.cluster(cluster).url}/_sim/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return ((await res.json()) as { token: string }).token;
  };
  const expiringToken = await newToken('expiring', { ttl_seconds: 2 * DAY, issued_seconds_ago: 28 * DAY });
  // A token of 2 days issued now: a short-lived one, not yet a third from its end.
  const freshToken = await newToken('fresh', { ttl_seconds: 2 * DAY });
  const agent = (name: string, sim: AgentSimulator, token: string) =>
    `  - { name: ${name}, address: "${sim.agent(name).url}", token_file: "${tempFile('agent-token', token)}", schedule: "${NEVER}" }\n`;
  const cluster = (name: string, token: string) =>
    `  - { name: ${name}, address: "${secrets.cluster(name).url}", token_file: "${tempFile('secrets-token', token)}", schedule: "${NEVER}", replication_kinds: [dr] }\n`;
  d = await startTestDaemon(
    `agents:\n${agent('eu-1', agents, agents.readToken)}${agent('eu-2', agents, agents.readToken)}${agent('us-1', open, 'any-token')}` +
      `secrets:\n${cluster('expiring', expiringToken)}${cluster('root', secrets.cluster('root').rootToken)}${cluster('fresh', freshToken)}`,
  );
  await d.collect();
  text = await d.scrape();
});
afterAll(async () => {
  await d?.close();
  await Promise.all([agents?.close(), open?.close(), secrets?.close()]);
});

describe('the expiries vigil exports', () => {
  const near = (key: string) => Math.abs((parseExposition(text).get(key) ?? NaN) - (Date.now() / 1000 + 2 * DAY));

  it('are the tokens the simulators expire, per agent and per secrets target', () => {
    expect(near('scheduler_agent_token_expiry_timestamp_seconds{target="eu-1"}')).toBeLessThan(120);
    expect(near('scheduler_agent_token_expiry_timestamp_seconds{target="eu-2"}')).toBeLessThan(120);
    expect(near('secrets_token_expiry_timestamp_seconds{target="expiring"}')).toBeLessThan(120);
    expect(parseExposition(text).get('secrets_token_renewable{target="expiring"}')).toBe(1);
  });

  it('leave out a root token and a cluster without ACLs, which have none', () => {
    expect(text).toContain('secrets_token_lookup_up{target="root"} 1');
    expect(text).not.toMatch(/token_expiry_timestamp_seconds\{target="(root|us-1)"\}/);
    expect(text).not.toContain('scheduler_agent_endpoint_up{target="us-1",endpoint="token"}');
  });

  it('never carry a token', () => {
    expect(text).not.toContain(agents.readToken);
    expect(text).not.toContain(secrets.cluster('root').rootToken);
  });
});

describe('the shipped token rules over that scrape', () => {
  it('warn once for the region and once for the secrets target, and for nothing else', () => {
    const now = Date.now() / 1000;
    // promtool's clock starts at 0: an expiry keeps its distance from now.
    const input = [...parseExposition(text)]
      .filter(([k, v]) => Number.isFinite(v) && /^(scheduler_agent_(token_|info|endpoint_up)|secrets_token_)/.test(k))
      .map(([k, v]) => ({ series: k, values: `${k.includes('_timestamp_seconds') ? v - now : v}x120` }));
    // ALERTS rather than alert_rule_test: the annotations are the rule unit tests' business.
    const firing = (labels: string) => `          - { labels: '{alertname=${labels}}', value: 1 }`;
    const test = [
      `rule_files: [${JSON.stringify(fileURLToPath(new URL('vigil-tokens.rules.yml', ALERTS_DIR)))}]`,
      'evaluation_interval: 1m',
      'tests:',
      '  - interval: 1m',
      '    input_series:',
      ...input.map((s) => `      - { series: ${JSON.stringify(s.series)}, values: ${JSON.stringify(s.values)} }`),
      '    promql_expr_test:',
      '      - expr: count by (alertname, region, target) (ALERTS{alertstate="firing"})',
      '        eval_time: 15m',
      '        exp_samples:',
      firing('"VigilSchedulerTokenExpiresSoon",region="eu"'),
      firing('"VigilSecretsTokenExpiresSoon",target="expiring"'),
    ].join('\n');
    const dir = tempDir('vigil-token-rules-');
    writeFileSync(join(dir, 'tokens.test.yml'), `${test}\n`);
    const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['test', 'rules', 'tokens.test.yml'], { cwd: dir, encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });
});
