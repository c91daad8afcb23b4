import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { spawnVigil, type VigilProcess } from '../helpers/process.js';
import { freePort, startAlertmanager, startPrometheus, type Service } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The HA alert path with real parts: a simulator fault → two vigil replicas (sharing one real
 * PostgreSQL) → a real Prometheus with the shipped rules → two real Alertmanagers clustered with
 * each other on loopback, each sending every notification to both replicas → one history. One
 * replica is SIGKILLed mid-stream. Rules' `for` and Alertmanager's intervals are shortened by
 * rewriting the shipped files, so the test takes about a minute.
 */
const repo = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));
let db: TestPostgres;
let secrets: SecretsSimulator;
const dir = tempDir('vigil-ha-');
let vigilConfig: string;
const vigils: VigilProcess[] = [];
const children: ChildProcess[] = [];
const alertmanagers: Service[] = [];
let prometheus: Service;
const ALERT = 'SecretsReplicationSecondaryDisconnected';

async function replica(): Promise<VigilProcess> {
  const v = await spawnVigil(vigilConfig, 60_000);
  children.push(v.child);
  vigils.push(v);
  return v;
}

/** The shipped rules with every `for` shortened: the path, not the rule's patience, is under test. */
function shortRules(): string {
  const out = join(dir, 'rules');
  mkdirSync(out);
  for (const f of readdirSync(repo('alerts')).filter((n) => n.endsWith('.rules.yml'))) {
    const doc = parse(readFileSync(repo(`alerts/${f}`), 'utf8')) as { groups: Array<{ rules: Array<Record<string, unknown>> }> };
    for (const g of doc.groups) for (const r of g.rules) if (r.for) r.for = '2s';
    writeFileSync(join(out, f), stringify(doc));
  }
  return join(out, '*.rules.yml');
}

/** The shipped HA Alertmanager config, with seconds for minutes and one webhook per vigil replica. */
function alertmanagerConfig(vigilUrls: string[]): unknown {
  const am = parse(readFileSync(repo('deploy/alertmanager/alertmanager-ha.yml'), 'utf8')) as {
    route: Record<string, unknown> & { routes: Array<Record<string, unknown>> };
    receivers: Array<{ name: string; webhook_configs: Array<Record<string, unknown>> }>;
  };
  for (const r of [am.route, ...am.route.routes]) {
    if ('group_wait' in r || r === am.route) r.group_wait = '1s';
    if ('group_interval' in r || r === am.route) r.group_interval = '1s';
    if ('repeat_interval' in r) r.repeat_interval = '5s';
  }
  for (const rcv of am.receivers) {
    const template = rcv.webhook_configs[0]!;
    rcv.webhook_configs =
      rcv.name === 'vigil'
        ? vigilUrls.map((u) => ({ url: `${u}/webhook/alertmanager`, send_resolved: true, max_alerts: 0 }))
        : [{ ...template, url: 'http://127.0.0.1:9/alert' }];
  }
  return am;
}

const getJson = async <T>(url: string): Promise<T> => {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as T;
};
type Alert = { alertname: string; state: string; labels: Record<string, string> };
type Payload = { groupKey: string; alerts: Array<{ fingerprint: string; status: string; startsAt: string; labels: Record<string, string> }> };
type Notification = { id: number; groupKey: string; status: string; duplicates: number; payload: Payload };
const alerts = (v: VigilProcess) => getJson<{ alerts: Alert[] }>(`${v.url}/api/v1/alerts`).then((b) => b.alerts);
const history = (v: VigilProcess) => getJson<{ notifications: Notification[] }>(`${v.url}/api/v1/notifications?limit=1000`).then((b) => b.notifications);
const stateOf = async (v: VigilProcess, name: string) => (await alerts(v)).find((a) => a.alertname === name)?.state;

beforeAll(async () => {
  db = await startPostgres();
  secrets = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 1000 });
  vigilConfig = join(dir, 'vigil.yml');
  const targets = [...secrets.clusters.values()].map((c) => `  - { name: ${c.name}, address: "${c.url}", schedule: "*/1 * * * * *", timeout: 800ms }`);
  writeFileSync(
    vigilConfig,
    [
      'secrets:',
      ...targets,
      'alert_sink:',
      `  store: { postgres: { url: "${db.url}", password_file: ${db.passwordFile}, tls: { mode: disable }, statement_timeout: 2s, connect_timeout: 1s } }`,
      '  watchdog: { max_silence: 30s }',
      '',
    ].join('\n'),
  );
  await replica();
  await replica();
  const urls = vigils.map((v) => v.url);
  const cluster = [await freePort(), await freePort()];
  for (const i of [0, 1]) {
    alertmanagers.push(
      await startAlertmanager(
        alertmanagerConfig(urls),
        [
          `--cluster.listen-address=127.0.0.1:${cluster[i]}`,
          `--cluster.peer=127.0.0.1:${cluster[1 - i]}`,
          '--cluster.peer-timeout=2s',
          '--cluster.gossip-interval=100ms',
          '--cluster.pushpull-interval=2s',
        ],
        `alertmanager-${i}`,
      ),
    );
  }
  const rules = shortRules();
  prometheus = await startPrometheus(
    {
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [rules],
      alerting: { alertmanagers: [{ static_configs: [{ targets: alertmanagers.map((a) => new URL(a.url).host) }] }] },
      scrape_configs: [{ job_name: 'vigil', static_configs: [{ targets: urls.map((u) => new URL(u).host) }] }],
    },
    ['--rules.alert.resend-delay=2s'],
  );
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  for (const a of alertmanagers) await a.stop();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await secrets?.close();
  await db?.destroy();
}, 60_000);

describe('an Alertmanager HA pair sending to two vigil replicas on one PostgreSQL', () => {
  it('keeps one history, loses nothing when a replica is SIGKILLed mid-stream, and both see the Watchdog', async () => {
    const [a, b] = vigils as [VigilProcess, VigilProcess];
    for (const v of [a, b]) await waitFor('the Watchdog at each replica', async () => ((await stateOf(v, 'Watchdog')) === 'firing' ? true : undefined), 90_000);

    const primary = secrets.cluster('dr-primary').url;
    const sim = (action: string) =>
      fetch(`${primary}/_sim/replication/dr/secondaries/dr-secondary/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    expect((await sim('disconnect')).status).toBeLessThan(300);
    await waitFor(`${ALERT} firing`, async () => ((await stateOf(b, ALERT)) === 'firing' ? true : undefined), 90_000);

    // Mid-stream: the Watchdog repeats every few seconds and the fault is about to resolve.
    a.child.kill('SIGKILL');
    await once(a.child, 'exit');
    expect((await sim('connect')).status).toBeLessThan(300);
    await waitFor(`${ALERT} resolved`, async () => ((await stateOf(b, ALERT)) === 'resolved' ? true : undefined), 90_000);

    const c = await replica();
    // The Watchdog keeps arriving, so the two replicas are compared between arrivals: c read
    // while b's answer stood still on either side of it.
    const agreed = async <T>(what: string, read: (v: VigilProcess) => Promise<T>): Promise<[T, T]> =>
      waitFor(
        `${what} alike at both replicas`,
        async () => {
          const [before, atC, after] = [await read(b), await read(c), await read(b)];
          return isDeepStrictEqual(before, after) ? ([before, atC] as [T, T]) : undefined;
        },
        30_000,
      );
    const [hb, hc] = await agreed('the history', history);
    expect(hc).toEqual(hb);
    const [ab, ac] = await agreed('the alerts', alerts);
    expect(ac).toEqual(ab);
    // Each notification once: two Alertmanagers × two replicas sent copies; they are counted, not stored.
    const identity = ({ payload: p }: Notification) => JSON.stringify([p.groupKey, p.alerts.map((x) => [x.fingerprint, x.status, x.startsAt]).sort()]);
    expect(new Set(hb.map(identity)).size).toBe(hb.length);
    expect(hb.reduce((s, n) => s + n.duplicates, 0)).toBeGreaterThan(0);
    const ours = hb.filter((n) => n.payload.alerts.some((x) => x.labels.alertname === ALERT));
    expect(new Set(ours.map((n) => n.status))).toEqual(new Set(['firing', 'resolved']));

    for (const v of [b, c]) {
      const health = await fetch(`${v.url}/api/v1/health`);
      expect(health.status).toBe(200);
      expect(await (await fetch(`${v.url}/metrics`)).text()).toMatch(/^vigil_alertsink_watchdog_healthy 1$/m);
    }
  }, 240_000);
});
