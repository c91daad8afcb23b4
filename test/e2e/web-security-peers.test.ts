import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCa, makeCert, type Ca, type CertFiles } from '../helpers/certs.js';
import type { VigilProcess } from '../helpers/process.js';
import { basicAuth, request, startSecuredVigil } from '../helpers/secured-vigil.js';
import { startAlertmanager, startPrometheus, type Service } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * vigil behind mTLS and basic auth with its real peers: Debian's Prometheus 2.42 scrapes it
 * (tls_config with a client certificate, basic_auth), Debian's Alertmanager 0.25 posts to its sink
 * (client certificate, the sink's bearer token). Each also tries with wrong credentials.
 */
const PASSWORD = 'peer-scrape-password-51d0';
const SINK_TOKEN = 'peer-sink-token-8e2c4b';

let ca: Ca;
let server: CertFiles;
let promClient: CertFiles;
let amClient: CertFiles;
const dir = tempDir('vigil-peers-');
let vigil: VigilProcess;
let prometheus: Service | undefined;
let alertmanager: Service | undefined;

const clientTls = (c: CertFiles) => ({ ca: readFileSync(ca.cert), cert: readFileSync(c.cert), key: readFileSync(c.key) });
const asPrometheus = { authorization: basicAuth('prometheus', PASSWORD) };

beforeAll(async () => {
  ca = makeCa('peers');
  server = makeCert(ca, '127.0.0.1', 'server', 'server');
  promClient = makeCert(ca, 'prometheus', 'client');
  amClient = makeCert(ca, 'alertmanager', 'client');
  writeFileSync(join(dir, 'sink-token'), SINK_TOKEN);
  writeFileSync(join(dir, 'wrong-token'), 'not-the-sink-token');
  vigil = await startSecuredVigil(dir, {
    config: `alert_sink:\n  bearer_token_file: ${join(dir, 'sink-token')}\n  store: { path: ${join(dir, 'alerts.db')} }\n`,
    webConfig: `tls_server_config:
  cert_file: ${server.cert}
  key_file: ${server.key}
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ${ca.cert}
basic_auth_users:
  prometheus: ${bcrypt.hashSync(PASSWORD, 8)}
`,
  });
  const target = new URL(vigil.url).host;
  const tlsConfig = (c: CertFiles) => ({ ca_file: ca.cert, cert_file: c.cert, key_file: c.key });
  prometheus = await startPrometheus({
    global: { scrape_interval: '1s', scrape_timeout: '1s' },
    scrape_configs: [
      {
        job_name: 'vigil',
        scheme: 'https',
        tls_config: tlsConfig(promClient),
        basic_auth: { username: 'prometheus', password: PASSWORD },
        static_configs: [{ targets: [target] }],
      },
      {
        job_name: 'vigil-wrong-password',
        scheme: 'https',
        tls_config: tlsConfig(promClient),
        basic_auth: { username: 'prometheus', password: 'wrong' },
        static_configs: [{ targets: [target] }],
      },
    ],
  });
  const webhook = (name: string, tokenFile: string) => ({
    name,
    webhook_configs: [
      {
        url: `${vigil.url}/webhook/alertmanager`,
        send_resolved: true,
        http_config: { authorization: { credentials_file: tokenFile }, tls_config: tlsConfig(amClient) },
      },
    ],
  });
  alertmanager = await startAlertmanager({
    route: {
      receiver: 'vigil',
      group_by: ['alertname'],
      group_wait: '0s',
      group_interval: '1s',
      repeat_interval: '1h',
      routes: [{ matchers: ['auth="wrong"'], receiver: 'vigil-wrong-token' }],
    },
    receivers: [webhook('vigil', join(dir, 'sink-token')), webhook('vigil-wrong-token', join(dir, 'wrong-token'))],
  });
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await alertmanager?.stop();
  await vigil?.stop();
  rmSync(ca.dir, { recursive: true, force: true });
});

interface PromTarget {
  labels: { job: string };
  health: string;
  lastError: string;
}

const promTarget = async (job: string) => {
  const res = await fetch(`${prometheus!.url}/api/v1/targets`);
  const body = (await res.json()) as { data: { activeTargets: PromTarget[] } };
  const t = body.data.activeTargets.find((x) => x.labels.job === job);
  return t && t.health !== 'unknown' ? t : undefined;
};

const sendAlert = async (labels: Record<string, string>) => {
  const res = await fetch(`${alertmanager!.url}/api/v2/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ labels, annotations: { summary: 'peer test' }, startsAt: new Date().toISOString() }]),
  });
  expect(res.status).toBe(200);
};

describe('Prometheus 2.42 scraping over mTLS with basic auth', () => {
  it('scrapes vigil: the target is up', async () => {
    const t = await waitFor('the vigil target to be scraped', () => promTarget('vigil'), 30_000);
    expect(t.health).toBe('up');
  }, 40_000);

  it('with the wrong password: the target is down, with the 401 as its error', async () => {
    const t = await waitFor('the wrong-password target to be scraped', () => promTarget('vigil-wrong-password'), 30_000);
    expect(t.health).toBe('down');
    expect(t.lastError).toContain('401');
  }, 40_000);
});

describe('Alertmanager 0.25 posting over mTLS with the bearer token', () => {
  it('delivers a notification into the sink', async () => {
    await sendAlert({ alertname: 'PeerTestGood', severity: 'warning' });
    // With web-config basic auth on, the read API takes those credentials (the bearer token is the webhook's).
    const reader = asPrometheus;
    await waitFor(
      'the notification in the sink',
      async () => {
        const res = await request(`${vigil.url}/api/v1/alerts?alertname=PeerTestGood`, { headers: reader, tls: clientTls(amClient) });
        return (JSON.parse(res.text) as { alerts: unknown[] }).alerts.length === 1 ? true : undefined;
      },
      30_000,
    );
  }, 40_000);

  it('with the wrong token: refused with 401, which Alertmanager logs (0.25 does not retry a 4xx); nothing stored', async () => {
    await sendAlert({ alertname: 'PeerTestWrong', severity: 'warning', auth: 'wrong' });
    await waitFor(
      'Alertmanager to log the refusal',
      async () => (/vigil-wrong-token.*unexpected status code 401/.test(alertmanager!.output()) ? true : undefined),
      30_000,
    );
    // The sink's families are re-rendered at most once a second, never in the refused request's turn.
    await waitFor(
      'the refusal to be counted',
      async () => {
        const metrics = await request(`${vigil.url}/metrics`, { headers: asPrometheus, tls: clientTls(promClient) });
        return /vigil_alertsink_rejected_total\{reason="auth"\} [1-9]/.test(metrics.text) ? true : undefined;
      },
      10_000,
    );
    const res = await request(`${vigil.url}/api/v1/alerts?alertname=PeerTestWrong`, { headers: asPrometheus, tls: clientTls(promClient) });
    expect(JSON.parse(res.text)).toEqual({ alerts: [], nextCursor: null });
  }, 40_000);

  it('never logs the password or the tokens', () => {
    const out = vigil.output();
    for (const secret of [PASSWORD, SINK_TOKEN]) expect(out).not.toContain(secret);
  });
});
