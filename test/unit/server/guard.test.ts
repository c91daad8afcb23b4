import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpGuard } from '../../../src/server/guard.js';
import type { CompareOutcome } from '../../../src/server/bcrypt-thread.js';
import { NO_WEB_CONFIG } from '../../../src/server/web-config.js';

/** How the guard answers the checks it could not make: what a later try may pass is 429, or 503 to Alertmanager (it retries only 5xx). */
const basic = `Basic ${Buffer.from('prometheus:secret').toString('base64')}`;
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function guarded(outcome: CompareOutcome): Promise<string> {
  const guard = new HttpGuard({ ...NO_WEB_CONFIG, users: new Map([['prometheus', '$2b$04$notchecked']]) }, { compare: () => Promise.resolve(outcome) });
  const server = http.createServer((req, res) => guard.handle(req, res, () => res.end('passed\n')));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the guard refusing a check it could not make', () => {
  it('answers a webhook 503 with Retry-After when too many checks wait, any other request 429', async () => {
    const url = await guarded('busy');
    const hook = await fetch(`${url}/webhook/alertmanager`, { method: 'POST', headers: { authorization: basic }, body: '{}' });
    expect(hook.status).toBe(503);
    expect(hook.headers.get('retry-after')).toBe('1');
    const prefixed = await fetch(`${url}/vigil/webhook/alertmanager?x=1`, { method: 'POST', headers: { authorization: basic }, body: '{}' });
    expect(prefixed.status).toBe(503);
    const scrape = await fetch(`${url}/metrics`, { headers: { authorization: basic } });
    expect(scrape.status).toBe(429);
    expect(scrape.headers.get('retry-after')).toBe('1');
  });

  it('keeps 401 for wrong credentials, a webhook included', async () => {
    const url = await guarded(false);
    expect((await fetch(`${url}/webhook/alertmanager`, { method: 'POST', headers: { authorization: basic }, body: '{}' })).status).toBe(401);
    expect((await fetch(`${url}/webhook/alertmanager`, { method: 'POST', body: '{}' })).status).toBe(401);
  });
});
