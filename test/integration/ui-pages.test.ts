import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notification, post } from '../helpers/alertmanager.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';

/** The status pages over HTTP, as curl sees them (no script): credentials, CSP, filters, paging, escaping. */

const WEBHOOK_TOKEN = 'webhook-secret-1';
const READ_TOKEN = 'read-secret-2';
let v: TestDaemon;

const get = async (path: string, token: string | null = READ_TOKEN) => {
  const res = await fetch(`${v.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

beforeAll(async () => {
  const bearer = tempFile('bearer', WEBHOOK_TOKEN);
  const reader = tempFile('reader', READ_TOKEN);
  v = await startTestDaemon(
    `secrets:\n  - name: down\n    address: http://127.0.0.1:1\n    schedule: "${NEVER}"\n` +
      `alert_sink:\n  store: { path: ${tempFile('alerts.db', '')}.d }\n  bearer_token_file: ${bearer}\n  read_token_file: ${reader}\n`,
  );
  const send = async (n: Parameters<typeof notification>[0]) =>
    expect((await post(v.url, notification(n), { headers: { authorization: `Bearer ${WEBHOOK_TOKEN}` } })).status).toBe(200);
  // 30 alerts: more than one page (25) of the history list.
  for (let i = 0; i < 30; i++) {
    await send({
      groupKey: `g${i}`,
      receiver: i % 2 ? 'pager' : 'mail',
      alerts: [
        {
          fingerprint: `f${String(i).padStart(2, '0')}`,
          alertname: `Alert${i}`,
          severity: i < 3 ? 'critical' : 'warning',
          startsAt: `2026-11-20T10:${String(i).padStart(2, '0')}:00Z`,
        },
      ],
    });
  }
  await send({ alerts: [{ fingerprint: 'evil', alertname: 'Evil', labels: { instance: '<script>alert(1)</script>', note: `" onmouseover="x` } }] });
  await send({
    alerts: [{ fingerprint: 'evil', alertname: 'Evil', status: 'resolved', labels: { instance: '<script>alert(1)</script>', note: `" onmouseover="x` } }],
  });
});
afterAll(async () => {
  await v?.close();
});

describe('every page', () => {
  it('sends a Content-Security-Policy that allows no inline script and nothing from elsewhere', async () => {
    for (const path of ['/', '/alerts', '/alerts/evil', '/ui/style.css']) {
      const csp = (await get(path)).headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toContain('unsafe');
    }
  });

  it('puts the alert history behind the read credentials, like the read API', async () => {
    for (const path of ['/alerts', '/alerts/evil', '/api/v1/alert-path']) {
      expect((await get(path, null)).status, path).toBe(401);
      expect((await get(path, 'wrong')).status, path).toBe(401);
      expect((await get(path)).status, path).toBe(200);
    }
  });

  it('opens the history in a browser with the read token as the basic-auth password, and offers that login', async () => {
    const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
    const refused = await fetch(`${v.url}/alerts`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('Basic realm="vigil alert history"');
    expect((await fetch(`${v.url}/alerts`, { headers: basic('anyone', READ_TOKEN) })).status).toBe(200);
    expect((await fetch(`${v.url}/api/v1/alerts`, { headers: basic('', READ_TOKEN) })).status).toBe(200);
    expect((await fetch(`${v.url}/alerts`, { headers: basic('anyone', 'wrong') })).status).toBe(401);
    expect((await fetch(`${v.url}/alerts`, { headers: basic(READ_TOKEN, '') })).status).toBe(401);
    // The webhook takes no such thing: Alertmanager's credentials are its bearer token only.
    const webhook = await post(v.url, notification({ groupKey: 'basic-read-token', alerts: [{ fingerprint: 'basic' }] }), {
      headers: basic('anyone', READ_TOKEN),
    });
    expect(webhook.status).toBe(401);
  });

  it('never shows a credential', async () => {
    for (const path of ['/', '/alerts', '/alerts/evil', '/api/v1/estate', '/api/v1/alert-path']) {
      const { text } = await get(path);
      expect(text).not.toContain(WEBHOOK_TOKEN);
      expect(text).not.toContain(READ_TOKEN);
    }
  });
});

describe('GET /', () => {
  it('renders the estate without script: the down target first, with its reason', async () => {
    const { status, headers, text } = await get('/', null);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toContain('text/html');
    expect(text).toMatch(/<h2 id="problems">\d+ problems?<\/h2>/);
    expect(text).toMatch(
      /<tr class="row-bad"><th scope="row">down<\/th><td>secrets_replication<\/td><td><span class="badge bad">down<\/span><\/td><td><strong>connect<\/strong> secrets\/replication-status dr: secrets\/replication-status: connection failed/,
    );
  });
});

describe('GET /alerts', () => {
  it('lists what fires now, the history and the notifications, with hostile labels as text', async () => {
    expect((await get('/alerts')).text).toContain('<span class="count">30</span>');
    const { text } = await get('/alerts?alertname=Evil');
    expect(text).not.toContain('<script>alert(1)');
    expect(text).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(text).toContain('&#34; onmouseover=&#34;x');
  });

  it('filters by alert name, severity and receiver', async () => {
    const crit = await get('/alerts?severity=critical');
    const lists = crit.text.slice(0, crit.text.indexOf('id="notifications"'));
    expect(lists.match(/<a href="alerts\/f\d\d">/g)?.length).toBe(6); // 3 firing now + the same 3 in the history
    const one = await get('/alerts?alertname=Alert7');
    expect(one.text).toContain('<a href="alerts/f07">Alert7</a>');
    expect(one.text.slice(0, one.text.indexOf('id="notifications"'))).not.toContain('alerts/f08');
    const pager = await get('/alerts?receiver=pager');
    const rows = pager.text.slice(pager.text.indexOf('id="notifications"'));
    expect(rows).toContain('<td>pager</td>');
    expect(rows).not.toContain('<td>mail</td>');
  });

  it('pages the history over the API cursor, keeping the filters', async () => {
    const first = await get('/alerts?severity=warning');
    const next = /<a href="([^"]+)" rel="next">older alerts/.exec(first.text)?.[1]?.replaceAll('&#38;', '&');
    expect(next).toMatch(/^alerts\?severity=warning&acursor=/);
    const second = await get(`/${next!}`);
    const fps = (t: string) =>
      new Set([...t.slice(t.indexOf('id="history"'), t.indexOf('id="notifications"')).matchAll(/"alerts\/(f\d\d)"/g)].map((m) => m[1]));
    const a = fps(first.text);
    const b = fps(second.text);
    expect(a.size).toBe(25);
    expect(b.size).toBe(2);
    expect([...b].filter((f) => a.has(f))).toEqual([]);
  });

  it('answers a bad filter with a 400 page naming it', async () => {
    const { status, text } = await get('/alerts?since=yesterday');
    expect(status).toBe(400);
    expect(text).toContain('since: expected an RFC 3339 time or Unix seconds');
  });
});

describe('GET /alerts/{fingerprint}', () => {
  it('shows each transition and how long it lasted', async () => {
    const { text } = await get('/alerts/evil');
    expect(text.match(/<tr><td><span class="badge (bad|ok)">(firing|resolved)<\/span>/g)).toEqual([
      '<tr><td><span class="badge bad">firing</span>',
      '<tr><td><span class="badge ok">resolved</span>',
    ]);
  });

  it('answers an unknown alert with a 404 page', async () => {
    const { status, text } = await get('/alerts/nope%3Cb%3E');
    expect(status).toBe(404);
    expect(text).toContain('no alert with fingerprint &#34;nope&#60;b&#62;&#34;');
  });
});
