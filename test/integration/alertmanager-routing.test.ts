import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startAlertmanager, type Service } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { alertRules } from '../helpers/rules.js';
import { kubernetesAlertmanager, routingOf, shippedAlertmanager, withReceiverUrls, type PlainAlertmanager } from '../helpers/shipped-alerting.js';
import { requireTool } from '../helpers/tools.js';
import { tempDir } from '../helpers/temp-dir.js';
import { CAUSES } from '../../src/server/problem-causes.js';

/**
 * The shipped routing and inhibition, in each form users deploy (alertmanager.yml, the HA pair's
 * file, the Kubernetes AlertmanagerConfig), checked with amtool and against a real Alertmanager:
 * every critical reaches the pager and is never inhibited, the Watchdog reaches the external
 * heartbeat, and only the warnings a critical explains are silenced.
 */
const variants: Record<string, PlainAlertmanager> = {
  'alertmanager.yml': shippedAlertmanager(),
  'alertmanager-ha.yml': shippedAlertmanager('deploy/alertmanager/alertmanager-ha.yml'),
  'kubernetes/alertmanagerconfig.yaml': kubernetesAlertmanager(),
};
const rules = alertRules();
const severity = new Map(rules.map((r) => [r.alert, r.labels.severity]));
/** The criticals a critical of their own cause holds (problem-causes.ts): SecretsServiceDown while audit devices block the cluster. */
const HELD_BY_THEIR_CAUSE = new Set(
  CAUSES.filter((c) => c.alerts.some((a) => severity.get(a) === 'critical')).flatMap((c) =>
    c.explains.flatMap((x) => (x.alertmanager === 'inhibited' ? x.alerts.filter((a) => severity.get(a) === 'critical') : [])),
  ),
);
const dir = tempDir('vigil-am-routing-');
let sink: http.Server;
let sinkUrl = '';

beforeAll(async () => {
  sink = http.createServer((req, res) => req.resume().on('end', () => res.end()));
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  sinkUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}/`;
});
afterAll(async () => {
  await new Promise((r) => sink.close(r));
});

/** The receivers amtool says an alert with these labels reaches, in order. */
function receiversOf(file: string, labels: Record<string, string>): string[] {
  const amtool = requireTool('amtool', 'apt-get install prometheus-alertmanager');
  const r = spawnSync(amtool, ['config', 'routes', 'test', `--config.file=${file}`, ...Object.entries(labels).map(([k, v]) => `${k}=${v}`)], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split(',')
    .map((s) => s.trim());
}

describe.each(Object.entries(variants))('%s', (name, am) => {
  const file = join(dir, `${name.replace(/\W/g, '_')}.yml`);
  writeFileSync(file, stringify(withReceiverUrls(am, () => 'http://127.0.0.1:9/')));

  it('routes and inhibits exactly as deploy/alertmanager/alertmanager.yml', () => {
    expect(routingOf(am)).toEqual(routingOf(shippedAlertmanager()));
  });

  it('sends every critical alert to the pager and to vigil', () => {
    const criticals = rules.filter((r) => r.labels.severity === 'critical');
    expect(criticals.length).toBeGreaterThan(10);
    for (const r of criticals) expect(receiversOf(file, { alertname: r.alert, severity: 'critical', target: 't' }), r.alert).toEqual(['pager', 'vigil']);
  });

  it('sends warnings and info to vigil only, and the Watchdog to the external heartbeat and to vigil', () => {
    for (const r of rules.filter((x) => x.labels.severity !== 'critical' && x.alert !== 'Watchdog')) {
      expect(receiversOf(file, { alertname: r.alert, severity: r.labels.severity!, target: 't' }), r.alert).toEqual(['vigil']);
    }
    expect(receiversOf(file, { alertname: 'Watchdog', severity: 'none' })).toEqual(['heartbeat', 'vigil']);
  });

  describe('in a real Alertmanager', () => {
    let alertmanager: Service;
    beforeAll(async () => {
      alertmanager = await startAlertmanager(withReceiverUrls(am, () => sinkUrl));
    }, 60_000);
    afterAll(() => alertmanager?.stop());

    interface AmAlert {
      labels: Record<string, string>;
      status: { state: string; inhibitedBy: string[] };
    }
    const post = async (alerts: Array<Record<string, string>>) => {
      const endsAt = new Date(Date.now() + 3600_000).toISOString();
      const res = await fetch(`${alertmanager.url}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(alerts.map((labels) => ({ labels, endsAt }))),
      });
      expect(res.status).toBe(200);
    };
    const current = async (): Promise<AmAlert[]> => (await (await fetch(`${alertmanager.url}/api/v2/alerts`)).json()) as AmAlert[];
    const find = (all: AmAlert[], labels: Record<string, string>) => all.find((a) => Object.entries(labels).every(([k, v]) => a.labels[k] === v));
    /** Every alert, once Alertmanager's inhibitor (which takes new alerts in on its own time) has marked this one. */
    const suppressed = (labels: Record<string, string>) =>
      waitFor(
        `${JSON.stringify(labels)} marked suppressed`,
        async () => {
          const now = await current();
          return find(now, labels)?.status.state === 'suppressed' ? now : undefined;
        },
        15_000,
        { everyMs: 200 },
      );

    it('never inhibits a critical but by a critical of its own cause, even with every alert of the rules firing for the same target', async () => {
      // Every alert at once, all on one target, region, kind and organization: the worst day.
      const common = {
        target: 'everything',
        region: 'global',
        kind: 'dr',
        organization: 'acme',
        reason: 'connect',
        collector: 'secrets_replication',
        instance: 'vigil-a:9810',
        job: 'vigil',
      };
      await post(rules.map((r) => ({ alertname: r.alert, ...r.labels, ...common })));
      await post([{ alertname: 'VigilCollectorFailing', severity: 'warning', target: 'healthy-elsewhere', reason: 'http_4xx' }]);
      const all = await suppressed({ alertname: 'VigilCollectorFailing', target: 'everything' });
      for (const r of rules.filter((x) => x.labels.severity === 'critical')) {
        const a = find(all, { alertname: r.alert, target: 'everything' });
        expect(a, r.alert).toBeDefined();
        if (HELD_BY_THEIR_CAUSE.has(r.alert)) expect(a!.status.state, r.alert).toBe('suppressed');
        else expect(a!.status, r.alert).toMatchObject({ state: 'active', inhibitedBy: [] });
      }
      expect([...HELD_BY_THEIR_CAUSE]).toEqual(['SecretsServiceDown']);
      // What the critical explains is silenced, for its target only.
      expect(find(all, { alertname: 'VigilCollectorFailing', target: 'everything' })!.status.state).toBe('suppressed');
      expect(find(all, { alertname: 'VigilCollectionStale', target: 'everything' })!.status.state).toBe('suppressed');
      expect(find(all, { alertname: 'VigilCollectorFailing', target: 'healthy-elsewhere' })!.status.state).toBe('active');
    });

    it('keeps a sealed cluster paged while vigil warns that it cannot collect from it', async () => {
      await post([
        { alertname: 'SecretsSealed', severity: 'critical', target: 'sealed-one', instance: 'vigil-a:9810', job: 'vigil' },
        {
          alertname: 'VigilCollectorFailing',
          severity: 'warning',
          target: 'sealed-one',
          reason: 'sealed',
          collector: 'secrets_replication',
          instance: 'vigil-a:9810',
          job: 'vigil',
        },
      ]);
      const all = await suppressed({ alertname: 'VigilCollectorFailing', target: 'sealed-one' });
      expect(find(all, { alertname: 'SecretsSealed', target: 'sealed-one' })!.status).toMatchObject({ state: 'active', inhibitedBy: [] });
      const warning = find(all, { alertname: 'VigilCollectorFailing', target: 'sealed-one' })!;
      expect(warning.status.state).toBe('suppressed');
      expect(warning.status.inhibitedBy).toHaveLength(1);
    });

    it('keeps the licence of a cluster to one notification: the warning waits while a critical about it fires, for that cluster only', async () => {
      const vigil = { instance: 'vigil-a:9810', job: 'vigil' };
      await post([
        { alertname: 'SecretsLicenseExpired', severity: 'critical', target: 'lic-expired', ...vigil },
        { alertname: 'SecretsLicenseExpiringSoon', severity: 'warning', target: 'lic-expired', ...vigil },
        { alertname: 'SecretsLicenseExpiryCritical', severity: 'critical', target: 'lic-days', ...vigil },
        { alertname: 'SecretsLicenseExpiringSoon', severity: 'warning', target: 'lic-days', ...vigil },
        { alertname: 'SecretsLicenseExpiringSoon', severity: 'warning', target: 'lic-weeks', ...vigil },
      ]);
      await suppressed({ alertname: 'SecretsLicenseExpiringSoon', target: 'lic-expired' });
      const all = await suppressed({ alertname: 'SecretsLicenseExpiringSoon', target: 'lic-days' });
      expect(find(all, { alertname: 'SecretsLicenseExpired', target: 'lic-expired' })!.status).toMatchObject({ state: 'active', inhibitedBy: [] });
      expect(find(all, { alertname: 'SecretsLicenseExpiryCritical', target: 'lic-days' })!.status).toMatchObject({ state: 'active', inhibitedBy: [] });
      expect(find(all, { alertname: 'SecretsLicenseExpiringSoon', target: 'lic-weeks' })!.status.state).toBe('active');
    });

    it('keeps the scheduler licence of a region to one notification: the warning waits while a critical about it fires, for that region only', async () => {
      const vigil = { instance: 'vigil-a:9810', job: 'vigil' };
      await post([
        { alertname: 'SchedulerLicenseExpiryCritical', severity: 'critical', region: 'lic-days', ...vigil },
        { alertname: 'SchedulerLicenseExpiringSoon', severity: 'warning', region: 'lic-days', ...vigil },
        { alertname: 'SchedulerLicenseExpiringSoon', severity: 'warning', region: 'lic-weeks', ...vigil },
      ]);
      const all = await suppressed({ alertname: 'SchedulerLicenseExpiringSoon', region: 'lic-days' });
      expect(find(all, { alertname: 'SchedulerLicenseExpiryCritical', region: 'lic-days' })!.status).toMatchObject({ state: 'active', inhibitedBy: [] });
      expect(find(all, { alertname: 'SchedulerLicenseExpiringSoon', region: 'lic-weeks' })!.status.state).toBe('active');
    });

    it('silences the nodes’ warnings of a cluster that pages at its address, and only of that cluster', async () => {
      const vigil = { instance: 'vigil-a:9810', job: 'vigil' };
      await post([
        { alertname: 'SecretsServiceDown', severity: 'critical', target: 'nodes-down', ...vigil },
        { alertname: 'SecretsNodeUnreachable', severity: 'warning', target: 'nodes-down', node: 'https://a-1:8200' },
        { alertname: 'SecretsSealed', severity: 'critical', target: 'nodes-sealed', ...vigil },
        { alertname: 'SecretsNodeSealed', severity: 'warning', target: 'nodes-sealed', node: 'https://b-1:8200' },
        { alertname: 'SecretsNodeSealed', severity: 'warning', target: 'standby-sealed', node: 'https://c-2:8200' },
      ]);
      await suppressed({ alertname: 'SecretsNodeUnreachable', target: 'nodes-down' });
      const all = await suppressed({ alertname: 'SecretsNodeSealed', target: 'nodes-sealed' });
      expect(find(all, { alertname: 'SecretsNodeSealed', target: 'standby-sealed' })!.status.state).toBe('active');
    });
  });
});
