import { X509Certificate } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import tls from 'node:tls';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notification } from '../helpers/alertmanager.js';
import { waitFor } from '../helpers/wait.js';
import { makeCa, makeCert, type Ca, type CertFiles } from '../helpers/certs.js';
import type { VigilProcess } from '../helpers/process.js';
import { basicAuth, request, startSecuredVigil } from '../helpers/secured-vigil.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * vigil as an operator runs it with --web.config.file: TLS and basic auth on every endpoint, the
 * sink's bearer token on the webhook, rotation of certificates, a bad web config on reload, mTLS.
 */
const PASSWORD = 'scrape-pa55word-7c1e';
const SINK_TOKEN = 'sink-bearer-token-3b9f2a';
const HASH = bcrypt.hashSync(PASSWORD, 6);

let ca: Ca;
let server: CertFiles;
const dir = tempDir('vigil-websec-');
let vigil: VigilProcess;

const webConfig = (extra = '') => `tls_server_config:
  cert_file: ${server.cert}
  key_file: ${server.key}
  min_version: TLS12
http_server_config:
  headers:
    Strict-Transport-Security: max-age=31536000
basic_auth_users:
  prometheus: ${HASH}
${extra}`;

beforeAll(async () => {
  ca = makeCa('vigil');
  server = makeCert(ca, '127.0.0.1', 'server', 'server');
  writeFileSync(join(dir, 'sink-token'), `${SINK_TOKEN}\n`);
  vigil = await startSecuredVigil(dir, {
    config: `alert_sink:\n  bearer_token_file: ${join(dir, 'sink-token')}\n  store: { path: ${join(dir, 'alerts.db')} }\n`,
    webConfig: webConfig(),
    flags: ['--web.enable-lifecycle'],
  });
}, 90_000);
afterAll(async () => {
  await vigil?.stop();
  rmSync(ca.dir, { recursive: true, force: true });
});

const trusted = () => ({ ca: readFileSync(ca.cert) });
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => request(`${vigil.url}${path}`, { method, headers, tls: trusted() });
const good = { authorization: basicAuth('prometheus', PASSWORD) };

const ENDPOINTS: Array<[string, string]> = [
  ['GET', '/metrics'],
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['GET', '/'],
  ['GET', '/api/v1/targets'],
  ['GET', '/api/v1/alerts'],
  ['GET', '/api/v1/notifications'],
  ['GET', '/api/v1/health'],
  ['GET', '/api/v1/alerts/abc/timeline'],
  ['POST', '/-/reload'],
  ['POST', '/-/collect'],
  ['GET', '/no-such-page'],
];

describe('TLS and basic auth from --web.config.file', () => {
  it('serves HTTPS only', async () => {
    expect(vigil.url).toMatch(/^https:/);
    await expect(request(vigil.url.replace('https:', 'http:'))).rejects.toThrow();
  });

  const expectChallenge = (res: Awaited<ReturnType<typeof get>>) => {
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="vigil", charset="UTF-8"');
    expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000');
  };

  it.each(ENDPOINTS)('%s %s answers 401 without credentials and with credentials that are not basic auth', async (method, path) => {
    for (const headers of [{}, { authorization: 'Bearer abc' }] as Array<Record<string, string>>) expectChallenge(await get(path, headers, method));
  });

  // One gate for every route: a wrong password or user is tried on one endpoint only, as a few
  // failed checks from one address make the next ones wait (see the flood below).
  it('answers 401 to a wrong password and to an unknown user', async () => {
    for (const authorization of [basicAuth('prometheus', 'wrong'), basicAuth('root', PASSWORD)]) expectChallenge(await get('/metrics', { authorization }));
  });

  it('answers with the right credentials, with the configured headers', async () => {
    for (const path of ['/metrics', '/healthz', '/api/v1/targets', '/api/v1/alerts', '/api/v1/health', '/']) {
      const res = await get(path, good);
      expect([200, 503]).toContain(res.status);
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000');
    }
    expect((await get('/-/collect', good, 'POST')).status).toBe(200);
  });

  it("lets Alertmanager post with the sink's bearer token (its one Authorization header), and no one without it", async () => {
    const body = JSON.stringify({
      receiver: 'r',
      status: 'firing',
      alerts: [],
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: 'http://am',
      version: '4',
      groupKey: 'k',
      truncatedAlerts: 0,
    });
    const post = (headers: Record<string, string>) =>
      request(`${vigil.url}/webhook/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, tls: trusted() });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer wrong-token' })).status).toBe(401);
    expect((await post(good)).status).toBe(401);
    expect((await post({ authorization: `Bearer ${SINK_TOKEN}` })).status).toBeLessThan(500);
  });

  it('refuses a TLS 1.1 handshake when min_version is TLS12, and takes TLS 1.2', async () => {
    const { port } = new URL(vigil.url);
    const handshake = (version: 'TLSv1.1' | 'TLSv1.2') =>
      new Promise<string>((resolve) => {
        // SECLEVEL=0 lets this client offer TLS 1.1 at all: the refusal must come from vigil.
        const s = tls.connect({
          host: '127.0.0.1',
          port: Number(port),
          ca: readFileSync(ca.cert),
          minVersion: version,
          maxVersion: version,
          ciphers: 'DEFAULT@SECLEVEL=0',
        });
        s.once('secureConnect', () => {
          resolve(String(s.getProtocol()));
          s.destroy();
        });
        s.once('error', (e) => resolve(`refused: ${e.message}`));
      });
    expect(await handshake('TLSv1.1')).toMatch(/^refused/);
    expect(await handshake('TLSv1.2')).toBe('TLSv1.2');
  });

  it('rejects a bad web config on reload like a bad config, and keeps serving with the old one', async () => {
    const file = join(dir, 'web.yml');
    writeFileSync(file, webConfig('rate_limit: { interval: soon }\n'));
    const res = await get('/-/reload', good, 'POST');
    expect(res.status).toBe(500);
    expect(res.text).toContain('rate_limit.interval: must be a duration');
    expect((await get('/metrics', good)).status).toBe(200);
    writeFileSync(file, webConfig());
    expect((await get('/-/reload', good, 'POST')).status).toBe(200);
  });

  it("applies the web config's rate_limit to every request, as exporter-toolkit does, and counts what it refused", async () => {
    const file = join(dir, 'web.yml');
    // One token a minute, three at most: the fourth request at once is refused.
    writeFileSync(file, webConfig('rate_limit: { interval: 1m, burst: 3 }\n'));
    expect((await get('/-/reload', good, 'POST')).status).toBe(200);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await get('/healthz', good)).status);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    writeFileSync(file, webConfig());
    // The reload itself may find the bucket empty: the config file is read again on the next try.
    await waitFor('the reload without a rate limit', async () => ((await get('/-/reload', good, 'POST')).status === 200 ? true : undefined), 70_000, {
      everyMs: 1000,
    });
    const metrics = (await get('/metrics', good)).text;
    expect(metrics).toMatch(/vigil_http_refused_total\{reason="rate_limited"\} [1-9]/);
  }, 90_000);

  it('applies a reloaded web config: a rotated password', async () => {
    const file = join(dir, 'web.yml');
    writeFileSync(file, webConfig().replace(HASH, bcrypt.hashSync('rotated-password', 6)));
    expect((await get('/-/reload', good, 'POST')).status).toBe(200);
    expect((await get('/metrics', good)).status).toBe(401);
    expect((await get('/metrics', { authorization: basicAuth('prometheus', 'rotated-password') })).status).toBe(200);
    writeFileSync(file, webConfig());
    expect((await get('/-/reload', { authorization: basicAuth('prometheus', 'rotated-password') }, 'POST')).status).toBe(200);
  });

  it('serves a rotated certificate to new connections without a restart', async () => {
    const serial = () =>
      new Promise<string>((resolve, reject) => {
        const s = tls.connect({ host: '127.0.0.1', port: Number(new URL(vigil.url).port), ca: readFileSync(ca.cert) }, () => {
          resolve(s.getPeerCertificate().serialNumber);
          s.destroy();
        });
        s.once('error', reject);
      });
    const before = await serial();
    makeCert(ca, '127.0.0.1', 'server', 'server');
    const expected = new X509Certificate(readFileSync(server.cert)).serialNumber;
    expect(expected).not.toBe(before);
    await waitFor('the new certificate', async () => ((await serial()) === expected ? true : undefined), 20_000, { everyMs: 250 });
  }, 30_000);

  it('counts refused clients and shows when the served certificate expires', async () => {
    const notAfter = Date.parse(new X509Certificate(readFileSync(server.cert)).validTo) / 1000;
    await waitFor(
      'the refusals on /metrics',
      async () => {
        const text = (await get('/metrics', good)).text;
        const unauthorized = Number(/^vigil_http_refused_total\{reason="unauthorized"\} (\d+)/m.exec(text)?.[1] ?? 0);
        const expiry = Number(/^vigil_http_tls_cert_expiry_timestamp_seconds (\S+)/m.exec(text)?.[1]);
        return unauthorized >= ENDPOINTS.length * 2 + 2 && expiry === notAfter ? true : undefined;
      },
      10_000,
      { everyMs: 250 },
    );
  });

  // Last of the checks on this vigil: the guesses leave 127.0.0.1 waiting a while for its next check.
  it('answers a flood of wrong passwords from one address 429 with Retry-After, without a bcrypt round each, and serves the verified scraper', async () => {
    const [guesses, scrapes] = await Promise.all([
      Promise.all(Array.from({ length: 40 }, (_, i) => get('/metrics', { authorization: basicAuth('prometheus', `guess-${i}`) }))),
      Promise.all(Array.from({ length: 10 }, () => get('/metrics', good))),
    ]);
    expect(scrapes.map((r) => r.status)).toEqual(Array(10).fill(200));
    // A 401 is a failed bcrypt round: five at most, the other guesses waited without one.
    const rounds = guesses.filter((r) => r.status === 401).length;
    expect(rounds).toBeLessThanOrEqual(5);
    expect(guesses.filter((r) => r.status === 429 && Number(r.headers.get('retry-after')) >= 1)).toHaveLength(40 - rounds);
    const refused = (text: string, reason: string) => Number(new RegExp(`^vigil_http_refused_total\\{reason="${reason}"\\} (\\d+)`, 'm').exec(text)?.[1]);
    await waitFor(
      'the throttled guesses on /metrics',
      async () => {
        const text = (await get('/metrics', good)).text;
        return refused(text, 'auth_throttled') >= 35 && refused(text, 'auth_busy') === 0 ? true : undefined;
      },
      10_000,
      { everyMs: 250 },
    );
  });

  it('never logs the password or the sink token', () => {
    const out = vigil.output();
    expect(out).not.toContain(PASSWORD);
    expect(out).not.toContain(SINK_TOKEN);
    expect(out).not.toContain(HASH);
  });
});

describe('mTLS: client_auth_type RequireAndVerifyClientCert', () => {
  let m: VigilProcess;
  const mdir = tempDir('vigil-mtls-');
  let client: CertFiles;
  let rogue: Ca;
  let rogueClient: CertFiles;
  beforeAll(async () => {
    client = makeCert(ca, 'prometheus', 'client');
    rogue = makeCa('rogue');
    rogueClient = makeCert(rogue, 'prometheus', 'client');
    m = await startSecuredVigil(mdir, {
      config: '',
      webConfig: `tls_server_config:\n  cert_file: ${server.cert}\n  key_file: ${server.key}\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ${ca.cert}\n`,
    });
  }, 90_000);
  afterAll(async () => {
    await m?.stop();
    rmSync(rogue.dir, { recursive: true, force: true });
  });

  const tlsWith = (c?: CertFiles) => ({ ca: readFileSync(ca.cert), ...(c ? { cert: readFileSync(c.cert), key: readFileSync(c.key) } : {}) });

  it('refuses a client without a certificate', async () => {
    await expect(request(`${m.url}/metrics`, { tls: tlsWith() })).rejects.toThrow();
  });

  it('refuses a client certificate from another CA', async () => {
    await expect(request(`${m.url}/metrics`, { tls: tlsWith(rogueClient) })).rejects.toThrow();
  });

  it('counts the failed handshakes', async () => {
    await waitFor(
      'the failed handshakes on /metrics',
      async () => {
        const text = (await request(`${m.url}/metrics`, { tls: tlsWith(client) })).text;
        return Number(/^vigil_http_refused_total\{reason="tls_handshake"\} (\d+)/m.exec(text)?.[1] ?? 0) >= 2 ? true : undefined;
      },
      10_000,
      { everyMs: 250 },
    );
  });

  it('serves a client certificate signed by client_ca_file', async () => {
    expect((await request(`${m.url}/metrics`, { tls: tlsWith(client) })).status).toBe(200);
  });
});

describe('under --web.route-prefix', () => {
  const prefixed = tempDir('vigil-websec-prefix-');
  let p: VigilProcess;
  beforeAll(async () => {
    writeFileSync(join(prefixed, 'sink-token'), `${SINK_TOKEN}\n`);
    writeFileSync(join(prefixed, 'web.yml'), `basic_auth_users:\n  prometheus: ${HASH}\n`);
    p = await startSecuredVigil(prefixed, {
      config: `alert_sink:\n  bearer_token_file: ${join(prefixed, 'sink-token')}\n  store: { path: ${join(prefixed, 'alerts.db')} }\n`,
      flags: [`--web.config.file=${join(prefixed, 'web.yml')}`, '--web.route-prefix=/vigil'],
    });
  }, 90_000);
  afterAll(async () => {
    await p?.stop();
  });

  it("still lets Alertmanager post with the sink's bearer token alone, and no one without it", async () => {
    const body = JSON.stringify(notification({ groupKey: 'prefixed', alerts: [{ fingerprint: 'p1' }] }));
    const post = (headers: Record<string, string>) =>
      request(`${p.url}/vigil/webhook/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await post({ authorization: `Bearer ${SINK_TOKEN}` })).status).toBe(200);
    expect((await post({})).status).toBe(401);
    expect((await post(good)).status).toBe(401);
    expect((await request(`${p.url}/vigil/metrics`, { headers: good })).status).toBe(200);
    expect((await request(`${p.url}/vigil/metrics`)).status).toBe(401);
  });
});
