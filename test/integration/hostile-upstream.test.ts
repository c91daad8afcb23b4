import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { readFixture } from '../helpers/fixtures.js';

/**
 * Upstreams that fight back: they echo vigil's token (plainly and behind JSON escapes), forge log
 * lines with CR and ANSI escapes, redirect to another origin, send a gzip bomb and oversized
 * headers. None of it may reach a log line, /api/v1/targets, the status page or a label raw.
 */
const TOKEN = 'agent-token-6f1d2c9a8b7e';
const SECRETS_TOKEN = 'secrets-token-0a9b8c7d6e5f';
const tokenFile = tempFile('agent-token', `${TOKEN}\n`);
const secretsTokenFile = tempFile('secrets-token', `${SECRETS_TOKEN}\n`);

/** The token with each character as a JSON \u escape: JSON.parse gives the token, the text does not contain it. */
const escaped = (s: string) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

let upstream: http.Server;
let elsewhere: http.Server;
const stolen: http.IncomingHttpHeaders[] = [];
let vigil: TestDaemon;

const listen = async (s: http.Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  elsewhere = http.createServer((req, res) => {
    stolen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const elsewhereUrl = await listen(elsewhere);
  const members = readFixture('agent/members-server.json').replace('"nomad-server-1.global"', `"${escaped(TOKEN)}"`);
  upstream = http.createServer((req, res) => {
    const path = req.url ?? '';
    const send = (status: number, body: string | Buffer, headers: http.OutgoingHttpHeaders = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
    if (path === '/v1/agent/health') return send(200, readFixture('agent/health-server.json'));
    if (path === '/v1/agent/members') return send(200, members);
    if (path === '/v1/agent/self') {
      const echoed = req.headers['x-scheduler-token'];
      return send(
        403,
        JSON.stringify({
          errors: [`permission denied for token ${echoed}\r\nts=2026-01-01T00:00:00Z level=info msg="forged line" \u001b[31mred\u001b[0m \u009b2J`],
        }),
      );
    }
    if (path === '/v1/operator/autopilot/health') return send(200, '{"Healthy":true,"FailureTolerance":1,"Servers":[]}');
    if (path === '/v1/agent/servers') return send(302, '["10.0.0.1:4647"]', { location: `${elsewhereUrl}/v1/agent/servers` });
    if (path === '/v1/sys/replication/dr/status') {
      // 64 MiB of zeros, gzipped to ~64 KiB: under the size cap only while compressed.
      return send(200, gzipSync(Buffer.alloc(64 * 1024 * 1024)), { 'content-encoding': 'gzip' });
    }
    if (path === '/v1/sys/replication/performance/status') return send(200, '{}', { 'x-padding': 'a'.repeat(64 * 1024) });
    send(404, '{"errors":["no route"]}');
  });
  const url = await listen(upstream);
  vigil = await startTestDaemon(
    `agents:\n  - name: hostile\n    address: ${url}\n    token_file: ${tokenFile}\n    schedule: "${NEVER}"\n` +
      `secrets:\n  - name: bomb\n    address: ${url}\n    token_file: ${secretsTokenFile}\n    schedule: "${NEVER}"\n    max_response_size: 1MiB\n`,
  );
});
afterAll(async () => {
  await vigil?.close();
  for (const s of [upstream, elsewhere]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe('a hostile upstream', () => {
  it('never gets vigil to follow a redirect (with or without its token), and its body is not data', async () => {
    expect(stolen).toEqual([]);
    const m = await vigil.metrics();
    expect([...m.keys()].some((k) => k.startsWith('scheduler_agent_known_servers'))).toBe(false);
    expect(vigil.logs().some((l) => String(l.err).includes('agent/servers: HTTP 302 redirect, not followed'))).toBe(true);
    expect(m.get('vigil_collector_failures_total{collector="scheduler_agent",reason="redirect",target="hostile"}')).toBe(1);
  });

  it('gets a gzip bomb refused without inflating it', async () => {
    const m = await vigil.metrics();
    expect(m.get('vigil_collector_failures_total{collector="secrets_replication",reason="decode",target="bomb"}')).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(vigil.daemon.targets())).toContain('answer is compressed (content-encoding \\"gzip\\") although vigil asked for none');
  });

  it('gets oversized headers refused as too_large', async () => {
    const m = await vigil.metrics();
    expect(m.get('vigil_collector_failures_total{collector="secrets_replication",reason="too_large",target="bomb"}')).toBeGreaterThanOrEqual(1);
  });

  it('cannot get the token it echoes into a log line, /api/v1/targets, the status page or a label', async () => {
    const shown = [
      JSON.stringify(vigil.logs()),
      await (await fetch(`${vigil.url}/api/v1/targets`)).text(),
      await (await fetch(`${vigil.url}/`)).text(),
      await vigil.scrape(),
    ];
    // The echo did arrive and was shown, redacted.
    expect(shown[1]).toContain('permission denied for token [REDACTED]');
    for (const text of shown) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(SECRETS_TOKEN);
    }
    // The member named with the escaped token is exported under the redacted name.
    expect(shown[3]).toContain('member="[REDACTED]"');
  });

  it('cannot forge a log line or send terminal escapes through its error text', async () => {
    const raw = vigil.rawLogs();
    const line = raw.split('\n').find((l) => l.includes('permission denied'));
    expect(line).toBeDefined();
    expect(line).not.toMatch(/[\r\u001b\u009b]/);
    expect(raw.split('\n').filter((l) => l.startsWith('ts=2026-01-01'))).toEqual([]);
    // Shown, visibly escaped, wherever the error is shown.
    const shown = [await (await fetch(`${vigil.url}/api/v1/targets`)).text(), await (await fetch(`${vigil.url}/`)).text()];
    for (const text of shown) {
      expect(text).not.toMatch(/[\r\u001b\u009b]/);
      expect(text).toContain('u000d');
      expect(text).toContain('u000ats=2026-01-01');
      expect(text).toContain('u001b[31mred');
    }
  });
});
