import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notification } from '../helpers/alertmanager.js';
import { tempFile } from '../helpers/daemon.js';
import { startNginx, type Nginx } from '../helpers/nginx.js';
import { startVigil, type VigilProcess } from '../helpers/process.js';
import { freePort } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { launch, screenshot, watchedPage } from './ui/browser.js';

/**
 * vigil behind a real nginx under a sub-path, as users run it behind an ingress: every page, link,
 * script, stylesheet, API call, form and redirect must stay under the prefix. Two ways: nginx strips
 * `/vigil/` (vigil serves at / and knows its --web.external-url), and nginx passes `/vigil-b/` on
 * (vigil serves under its route prefix, taken from the external URL).
 */
let nginx: Nginx;
let browser: Browser;
const vigils: VigilProcess[] = [];
const direct: Record<string, string> = {};

async function startBehind(name: string, port: number, flags: string[]): Promise<void> {
  const store = tempFile('alerts.db', '').replace(/alerts\.db$/, `${name}.db`);
  const config = tempFile(
    'vigil.yml',
    `secrets:\n  - { name: down, address: "http://127.0.0.1:1", schedule: "*/2 * * * * *" }\nalert_sink:\n  store: { path: ${store} }\n`,
  );
  const v = startVigil([`--config.file=${config}`, `--web.listen-address=127.0.0.1:${port}`, ...flags]);
  vigils.push(v);
  direct[name] = `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  const [a, b] = [await freePort(), await freePort()];
  nginx = await startNginx({ '/vigil/': `http://127.0.0.1:${a}/`, '/vigil-b/': `http://127.0.0.1:${b}` });
  await startBehind('strip', a, [`--web.external-url=${nginx.url}/vigil/`, '--web.route-prefix=/']);
  await startBehind('keep', b, [`--web.external-url=${nginx.url}/vigil-b/`]);
  for (const [prefix, path] of [
    ['/vigil/', '/'],
    ['/vigil-b/', '/vigil-b/'],
  ] as const) {
    // Up, and its alert sink ready (its store opens in a thread of its own after vigil listens).
    await waitFor(
      `vigil behind ${prefix}`,
      async () => ((await fetch(`${nginx.url}${prefix}api/v1/alerts`).catch(() => undefined))?.ok ? true : undefined),
      60_000,
    );
    void path;
  }
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(vigils.map((v) => v.stop()));
  await nginx?.stop();
});

describe.each([
  ['nginx strips the prefix, vigil knows its external URL', '/vigil/'],
  ['nginx passes the prefix on, vigil serves under it', '/vigil-b/'],
])('%s', (_name, prefix) => {
  const base = () => `${nginx.url}${prefix}`;

  it('serves the estate page, its script, style and API through the proxy, and every link stays under the prefix', async () => {
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    const requested: string[] = [];
    page.on('response', (r) => requested.push(`${r.status()} ${r.url()}`));
    await page.goto(base());
    await page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
    const outside = requested.filter((r) => !r.includes(`${nginx.url}${prefix}`));
    expect(outside).toEqual([]);
    expect(requested.filter((r) => !/^[23]\d\d /.test(r))).toEqual([]);
    expect(requested.some((r) => r.includes(`${prefix}api/v1/estate`))).toBe(true);
    const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
    expect(hrefs.filter((h) => h.startsWith(nginx.url) && !h.startsWith(base()))).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('follows the navigation, the filter form and an alert’s timeline under the prefix', async () => {
    // A notification posted through the proxy, as Alertmanager would reach vigil behind it.
    const res = await fetch(`${base()}webhook/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(notification({ alerts: [{ alertname: 'ProxiedAlert', fingerprint: 'fp-proxy', severity: 'critical' }] })),
    });
    expect(res.status).toBe(200);
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    await page.goto(base());
    await page.getByRole('link', { name: 'Alerts' }).click();
    await page.waitForURL(`${base()}alerts`);
    await page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
    await page.getByLabel('Severity').selectOption('critical');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(`${base()}alerts?**`);
    await page.getByRole('link', { name: 'ProxiedAlert' }).first().click();
    await page.waitForURL(`${base()}alerts/fp-proxy`);
    await page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
    expect(await page.locator('h1').textContent()).toContain('ProxiedAlert');
    await screenshot(page, `behind-proxy${prefix.replace(/\W/g, '-')}`);
    expect(problems).toEqual([]);
    // The metrics page, whole: a browser asks for text/html and gets the plain body (it would
    // decode only the first of the gzip members). Its own request for /favicon.ico at the
    // origin's root is the browser's, outside vigil's prefix.
    await page.getByRole('link', { name: 'Metrics' }).click();
    await page.waitForURL(`${base()}metrics`);
    expect(await page.content()).toContain('vigil_build_info');
    await context.close();
  }, 60_000);
});

describe('a route prefix', () => {
  it('serves nothing outside it, and sends / to it', async () => {
    const res = await fetch(`${direct.keep}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/vigil-b/');
    expect((await fetch(`${direct.keep}/metrics`)).status).toBe(404);
    expect((await fetch(`${direct.keep}/vigil-b/metrics`)).status).toBe(200);
  });
});
