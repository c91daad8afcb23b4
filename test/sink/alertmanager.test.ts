import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { series } from '../helpers/exposition.js';
import { freePort } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The real Alertmanager (Debian's prometheus-alertmanager 0.25) delivering to vigil's sink over
 * loopback, with auth on both sides. Clustering is off (--cluster.listen-address=) so it stays off
 * the network; it runs with short group timers so a notification goes out within a second or two.
 */
const AM_BIN = '/usr/bin/prometheus-alertmanager';

interface Notification {
  receiver: string;
  status: string;
  payload: { receiver: string; alerts: Array<{ status: string; labels: Record<string, string> }> };
}

const dir = tempDir('vigil-am-');
let vigil: TestDaemon;
/** The read API takes the sink's own credentials once it has some. */
const READER = { authorization: 'Bearer am-bearer-token' };
let am: ChildProcess | undefined;
let amUrl: string;
const amLog: string[] = [];

/** Waits for what Alertmanager delivers, with its log in the failure. */
const delivered = <T>(what: string, get: () => Promise<T | undefined>, ms = 20_000) =>
  waitFor(what, get, ms, { describeFailure: () => `; alertmanager log:\n${amLog.slice(-20).join('')}` });

/** POST /api/v2/alerts: what Prometheus does for each rule evaluation. */
async function sendAlert(labels: Record<string, string>, startsAt: Date, endsAt?: Date): Promise<void> {
  const res = await fetch(`${amUrl}/api/v2/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([
      {
        labels,
        annotations: { summary: 'vigil end-to-end test' },
        startsAt: startsAt.toISOString(),
        ...(endsAt ? { endsAt: endsAt.toISOString() } : {}),
        generatorURL: 'http://prometheus.invalid/graph',
      },
    ]),
  });
  expect(res.status).toBe(200);
}

async function notificationsOf(alertname: string, status: string): Promise<Notification | undefined> {
  const { body } = await getJson<{ notifications: Notification[] }>(vigil.url, '/api/v1/notifications?limit=1000', READER);
  return body.notifications.find((n) => n.status === status && n.payload.alerts.some((a) => a.labels.alertname === alertname));
}

/** Each test fails (rather than being skipped) where the binary is missing. */
function requireAlertmanager(): void {
  if (!existsSync(AM_BIN)) throw new Error('prometheus-alertmanager not found: apt-get install prometheus-alertmanager');
}

beforeAll(async () => {
  if (!existsSync(AM_BIN)) return;
  writeFileSync(join(dir, 'token'), 'am-bearer-token\n');
  writeFileSync(join(dir, 'password'), 'am-basic-password\n');
  writeFileSync(join(dir, 'wrong-token'), 'not-the-token\n');
  vigil = await startTestDaemon(
    `alert_sink:\n  bearer_token_file: ${dir}/token\n  basic_auth: { username: am, password_file: ${dir}/password }\n  store: { path: ${dir}/alerts.db }\n`,
  );
  const hook = `${vigil.url}/webhook/alertmanager`;
  writeFileSync(
    join(dir, 'alertmanager.yml'),
    `route:
  receiver: web.hook
  group_by: [alertname]
  group_wait: 100ms
  group_interval: 1s
  repeat_interval: 1h
  routes:
    - { matchers: ['auth="basic"'], receiver: basic.hook }
    - { matchers: ['auth="wrong"'], receiver: wrong.hook }
receivers:
  - name: web.hook
    webhook_configs:
      - url: ${hook}
        send_resolved: true
        http_config:
          authorization: { type: Bearer, credentials_file: ${dir}/token }
  - name: basic.hook
    webhook_configs:
      - url: ${hook}
        send_resolved: true
        http_config:
          basic_auth: { username: am, password_file: ${dir}/password }
  - name: wrong.hook
    webhook_configs:
      - url: ${hook}
        http_config:
          authorization: { type: Bearer, credentials_file: ${dir}/wrong-token }
`,
  );
  const port = await freePort();
  amUrl = `http://127.0.0.1:${port}`;
  am = spawn(
    AM_BIN,
    [
      `--config.file=${dir}/alertmanager.yml`,
      `--storage.path=${dir}/am-data`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=debug',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  am.stdout?.on('data', (c: Buffer) => amLog.push(c.toString()));
  am.stderr?.on('data', (c: Buffer) => amLog.push(c.toString()));
  await delivered('alertmanager to be ready', async () => ((await fetch(`${amUrl}/-/ready`)).ok ? true : undefined), 15_000);
}, 30_000);

afterAll(async () => {
  if (am && am.exitCode === null && am.signalCode === null) {
    const exited = once(am, 'exit');
    am.kill('SIGTERM');
    const timer = setTimeout(() => am?.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
  await vigil?.close();
}, 15_000);

describe('Alertmanager 0.25 delivering to the sink', () => {
  it('delivers a firing alert and then its resolution (bearer token), the receiver unescaped', async () => {
    requireAlertmanager();
    const labels = { alertname: 'VigilE2EDiskFull', severity: 'critical', instance: 'db-1' };
    const startsAt = new Date(Date.now() - 60_000);
    await sendAlert(labels, startsAt);
    const firing = await delivered('the firing notification', () => notificationsOf(labels.alertname, 'firing'));
    expect(firing.receiver).toBe('web.hook');
    expect(firing.payload.receiver).toBe('web\\.hook');

    await sendAlert(labels, startsAt, new Date(Date.now() - 1_000));
    const resolved = await delivered('the resolved notification', () => notificationsOf(labels.alertname, 'resolved'));
    expect(resolved.receiver).toBe('web.hook');

    const { body } = await getJson<{ alerts: Array<{ fingerprint: string; state: string; startsAt: string; resolvedAt: string }> }>(
      vigil.url,
      `/api/v1/alerts?alertname=${labels.alertname}`,
      READER,
    );
    expect(body.alerts).toHaveLength(1);
    expect(body.alerts[0]).toMatchObject({ state: 'resolved', startsAt: startsAt.toISOString() });
    const timeline = await getJson<{ transitions: Array<{ state: string }> }>(vigil.url, `/api/v1/alerts/${body.alerts[0]!.fingerprint}/timeline`, READER);
    expect(timeline.body.transitions.map((t) => t.state)).toEqual(['firing', 'resolved']);
  }, 45_000);

  it('delivers with basic auth from a password file', async () => {
    requireAlertmanager();
    await sendAlert({ alertname: 'VigilE2EBasic', severity: 'warning', auth: 'basic' }, new Date());
    const n = await delivered('the notification sent with basic auth', () => notificationsOf('VigilE2EBasic', 'firing'));
    expect(n.receiver).toBe('basic.hook');
  }, 30_000);

  it('is refused (401, never retried by Alertmanager) with the wrong credentials, storing nothing', async () => {
    requireAlertmanager();
    await sendAlert({ alertname: 'VigilE2EWrong', severity: 'warning', auth: 'wrong' }, new Date());
    await delivered(
      'the refusal',
      async () => ((await vigil.metrics()).get(series('vigil_alertsink_rejected_total', { reason: 'auth' })) ?? 0) >= 1 || undefined,
    );
    expect(await notificationsOf('VigilE2EWrong', 'firing')).toBeUndefined();
    const { body } = await getJson<{ alerts: unknown[] }>(vigil.url, '/api/v1/alerts?alertname=VigilE2EWrong', READER);
    expect(body.alerts).toEqual([]);
  }, 30_000);
});
