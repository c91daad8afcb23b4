import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALERTS_DIR, alertRules, ruleFiles, ruleTestCoverage, runbookAnchors, telemetryRuleFiles, telemetryTestFiles, testFiles } from '../helpers/rules.js';
import { requireTool } from '../helpers/tools.js';

const dir = fileURLToPath(ALERTS_DIR);
/** promtool takes about 20 s over every rule test alone on these machines, and more beside other tests. */
const PROMTOOL_MS = 180_000;
const run = (args: string[]) => {
  const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), args, { cwd: dir, encoding: 'utf8', timeout: PROMTOOL_MS });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
};

describe('alert rules', () => {
  it('pass promtool check rules', () => {
    const r = run(['check', 'rules', ...ruleFiles(), ...telemetryRuleFiles()]);
    expect(r.output).not.toContain('FAILED');
    expect(r.status).toBe(0);
  });

  it(
    'pass their promtool unit tests',
    () => {
      const r = run(['test', 'rules', ...[...testFiles(), ...telemetryTestFiles()].map((f) => `tests/${f}`)]);
      expect(r.output).not.toContain('FAILED');
      expect(r.status).toBe(0);
    },
    PROMTOOL_MS,
  );

  // The optional rules on the upstreams' telemetry are held to the same conventions.
  const rules = [...alertRules(), ...alertRules(telemetryRuleFiles())];
  const coverage = ruleTestCoverage([...testFiles(), ...telemetryTestFiles()]);
  const runbooks = readFileSync(new URL('../../docs/runbooks.md', import.meta.url), 'utf8');
  const anchors = new Set(runbookAnchors(runbooks));

  it('include the alerts operators page on', () => {
    const names = rules.map((r) => r.alert);
    for (const a of [
      'SecretsReplicationSecondaryDisconnected',
      'SecretsReplicationHeartbeatStale',
      'SecretsReplicationWALLagHigh',
      'SecretsReplicationNotStreaming',
      'SecretsMerkleTreeCorrupted',
      'SecretsReplicationNoPrimary',
      'SchedulerAgentUnhealthy',
      'SchedulerAgentMemberFailed',
      'SchedulerAgentNoKnownServers',
      'SchedulerAgentNoRaftLeader',
      'TeamsAccessInconsistent',
      'VigilCollectorFailing',
      'VigilCollectionStale',
      'VigilWatchdogMissing',
      'Watchdog',
      'SecretsDROperationTokenAttemptOpen',
      'SecretsDROperationTokenAttemptOpenLong',
      'SecretsSealed',
      'SecretsReplicationSplitBrain',
      'SecretsReplicationPrimaryNotWatched',
      'SecretsReplicationPrimaryChanged',
      'SchedulerAgentRaftApplyLagging',
      'SchedulerAgentRaftLastContactHigh',
      'SchedulerAgentGossipUnhealthy',
      'SchedulerAgentGossipMembersLost',
      'SchedulerAgentServersBelowExpected',
      'SchedulerAgentHostDiskAlmostFull',
      'SchedulerAgentHostDiskFillingUp',
      'VigilUpstreamCertificateExpiresSoon',
      'VigilUpstreamCertificateExpiresImminently',
      'TeamsCountDropped',
      'TeamsOwnersDropped',
      'VigilServedCertificateExpiresSoon',
    ]) {
      expect(names).toContain(a);
    }
  });

  describe.each(rules.map((r) => [`${r.alert} (${r.file})`, r] as const))('%s', (_name, rule) => {
    it('follows the mixin conventions', () => {
      expect(rule.alert).toMatch(/^(Secrets|Scheduler|Teams|Vigil)[A-Za-z]+$|^Watchdog$/);
      expect(['critical', 'warning', 'info', 'none']).toContain(rule.labels.severity);
      expect(rule.annotations.summary).toMatch(/^[A-Z].*\.$/);
      expect(rule.annotations.summary).not.toContain('{{');
      expect(rule.annotations.description).toBeTruthy();
      if (rule.alert !== 'Watchdog') expect(rule.annotations.description).toContain('{{');
    });

    it('links a runbook section that exists', () => {
      const anchor = /#([a-z0-9-]+)$/.exec(rule.annotations.runbook_url ?? '')?.[1];
      expect(anchor).toBe(rule.alert.toLowerCase());
      expect(anchors).toContain(anchor);
    });

    it('has a promtool test where it fires and one where it must not', () => {
      const c = coverage.get(rule.alert) ?? { firing: 0, silent: 0 };
      expect(c.firing).toBeGreaterThan(0);
      if (rule.alert !== 'Watchdog') expect(c.silent).toBeGreaterThan(0);
    });
  });
});
