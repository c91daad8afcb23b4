import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_PROFILES, startAgentSimulator } from '../../simulators/agent/index.js';
import { SECRETS_PROFILES, demoSecretsScenario, startSecretsSimulator } from '../../simulators/secrets/index.js';
import { TEAMS_PROFILES, startTeamsSimulator } from '../../simulators/teams/index.js';
import { startTestDaemon, tempFile } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { parseExposition, series, seriesOf } from '../helpers/exposition.js';
import { runSilentRulesTest } from '../helpers/rules-on-scrape.js';
import { promtoolCheckMetrics } from '../helpers/tools.js';

/**
 * vigil against each simulator profile (the shapes older releases send): the scrape passes promtool,
 * the profile's shape shows in the series, and the shipped alert rules, evaluated by promtool over
 * the scraped series held for 75 minutes, raise no alert on these healthy clusters.
 */
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

function expectNoAlert(text: string): void {
  const r = runSilentRulesTest(text);
  expect(r.output).toContain('SUCCESS');
  expect(r.status).toBe(0);
}

async function scrapeOf(yaml: string): Promise<string> {
  const d = await startTestDaemon(yaml);
  closers.push(() => d.close());
  await d.collect();
  const text = await d.scrape();
  const check = promtoolCheckMetrics(text);
  expect(check.output).toBe('');
  return text;
}

describe.each(SECRETS_PROFILES)('the secrets simulator, profile %s', (profile) => {
  it('is read without a false alert', async () => {
    const sim = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000, profile });
    closers.push(() => sim.close());
    const t = (name: string) => `  - { name: ${name}, address: "${sim.cluster(name).url}", timeout: 2s, schedule: "${NEVER}" }\n`;
    const text = await scrapeOf(`secrets:\n${t('dr-primary')}${t('dr-secondary')}${t('perf-primary')}${t('perf-secondary')}`);
    const m = parseExposition(text);
    const P = { target: 'dr-primary', kind: 'dr' };
    expect(m.get(series('secrets_replication_up', P))).toBe(1);
    expect(m.get(series('secrets_replication_secondaries_reported', P))).toBe(profile === 'pre-1.5' ? 0 : 1);
    expect(seriesOf(m, 'secrets_replication_secondary_connected').size).toBe(profile === 'pre-1.5' ? 0 : 2);
    expect(seriesOf(m, 'secrets_replication_secondary_clock_skew_seconds').size).toBe(profile === 'current' ? 2 : 0);
    expectNoAlert(text);
  }, 180_000);
});

describe.each(AGENT_PROFILES)('the agent simulator, profile %s', (profile) => {
  it('is read without a false alert', async () => {
    const sim = await startAgentSimulator(
      {
        agents: [
          { name: 'server-1', role: 'server', members: 3 },
          { name: 'client-1', role: 'client', servers: ['10.0.0.11:4647'] },
        ],
      },
      { profile },
    );
    closers.push(() => sim.close());
    const t = (name: string) => `  - { name: ${name}, address: "${sim.agent(name).url}", schedule: "${NEVER}", host: true }\n`;
    const text = await scrapeOf(`agents:\n${t('server-1')}${t('client-1')}`);
    const m = parseExposition(text);
    expect(m.get(series('scheduler_agent_endpoint_up', { target: 'server-1', endpoint: 'self' }))).toBe(1);
    expect(m.get(series('scheduler_agent_raft_commit_index', { target: 'server-1' }))).toBeGreaterThan(0);
    expect(seriesOf(m, 'scheduler_agent_serf_health_score').size).toBe(profile === '0.x' ? 0 : 1);
    expect(seriesOf(m, 'scheduler_agent_runtime_goroutines').size).toBe(profile === '0.x' ? 0 : 2);
    expectNoAlert(text);
  }, 180_000);
});

describe.each(TEAMS_PROFILES)('the teams simulator, profile %s', (profile) => {
  it('is read without a false alert', async () => {
    const sim = await startTeamsSimulator({ organizations: [{ name: 'acme', teams: 30, seed: 7 }] }, { profile });
    closers.push(() => sim.close());
    const text = await scrapeOf(
      `teams:\n  - name: acme\n    address: ${sim.url}\n    organization: acme\n    token_file: ${tempFile('token', sim.ownerToken('acme'))}\n    schedule: "${NEVER}"\n`,
    );
    const m = parseExposition(text);
    const T = { target: 'acme', organization: 'acme' };
    expect(m.get(series('teams_up', T))).toBe(1);
    const reported = (permission: string) => m.get(series('teams_organization_access_reported_teams', { ...T, permission }));
    expect(reported('manage-policies')).toBe(30);
    expect(reported('manage-providers')).toBe(profile === 'three-flags' ? 0 : 30);
    expectNoAlert(text);
  }, 180_000);
});
