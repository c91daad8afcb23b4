import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfig } from '../../simulators/demo-config.js';
import { DEMO_NODES_CLUSTER, demoWithNodesScenario } from '../../simulators/secrets/index.js';
import { notification, post, type AlertSpec } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';
import { launch, screenshot, seriousA11yViolations, watchedPage } from './ui/browser.js';
import { buildUi, startDemoUpstreams, type DemoUpstreams } from './ui/demo-upstreams.js';
import { badgesOutside, narrowed, sideways, textLines } from './ui/layout.js';

/**
 * The status pages' layout in Chromium, on the demo's estate, at a desktop's 1,400 px and a
 * phone's 390 px: nothing wider than the page or its card, an address broken only where an address
 * breaks, one client node row per region and pool, a quorum's normal state in no warning colour,
 * and the alert history's criticals above the Watchdog and the info alerts (one link shows them).
 */
const WIDTHS = [1400, 390] as const;
const dir = tempDir('vigil-layout-');
let upstreams: DemoUpstreams;
let v: TestDaemon;
let browser: Browser;

beforeAll(async () => {
  buildUi();
  upstreams = await startDemoUpstreams(dir, demoWithNodesScenario());
  const { secrets, agents, teams, organization, file } = upstreams;
  const files = { ...upstreams.files, nodesTokenFile: file('nodes-token', secrets.cluster(DEMO_NODES_CLUSTER).rootToken) };
  v = await startTestDaemon(demoConfig({ secrets, agents, teams, organization }, files), { settle: true });
  const alerts: AlertSpec[] = [
    { fingerprint: 'watchdog', alertname: 'Watchdog', severity: 'none' },
    ...Array.from({ length: 10 }, (_, i) => ({
      fingerprint: `team${i}`,
      alertname: 'TeamsOrganizationAccess',
      severity: 'info',
      labels: { team: `team-${i}` },
    })),
  ];
  expect((await post(v.url, notification({ groupKey: 'noise', alerts }))).status).toBe(200);
  // Three criticals, two of them resolved since: what an operator looks for under the noise.
  const critical = (n: number, status: AlertSpec['status']): AlertSpec => ({
    fingerprint: `crit${n}`,
    alertname: 'SecretsReplicationSecondaryDisconnected',
    severity: 'critical',
    status,
  });
  for (const alerts of [[1, 2, 3].map((n) => critical(n, 'firing')), [1, 2].map((n) => critical(n, 'resolved'))]) {
    expect((await post(v.url, notification({ groupKey: 'critical', alerts }))).status).toBe(200);
  }
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await v?.close();
  await upstreams?.close();
}, 60_000);

async function open(path: string, width: number): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const w = await watchedPage(context);
  await w.page.goto(`${v.url}${path}`);
  await w.page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
  return w;
}

async function done(w: { page: Page; problems: string[] }, name: string): Promise<void> {
  await screenshot(w.page, name);
  expect(await seriousA11yViolations(w.page)).toEqual([]);
  expect(w.problems).toEqual([]);
  await w.page.context().close();
}

describe.each(WIDTHS)('the estate view at %i px', (width) => {
  it('scrolls no sideways, keeps every badge inside its card and breaks the active node only where an address breaks', async () => {
    const w = await open('/', width);
    const { page } = w;
    expect(await sideways(page)).toBe(0);
    expect(await badgesOutside(page)).toEqual([]);
    expect(await page.locator('li.card .badge', { hasText: 'configured address only' }).count()).toBeGreaterThan(0);
    const addr = '.nodes-summary .addr';
    const full = await page.locator(addr).first().innerText();
    const lastPartAndPort = /[^./]*:\d+$/.exec(full)![0];
    // Natural width, then a card too narrow for the whole address.
    for (const narrow of [false, true]) {
      if (narrow) await narrowed(page, addr, '9em');
      const lines = await textLines(page, addr);
      const shown = lines.join(' / ');
      expect(lines.join('')).toBe(full);
      expect(
        lines.some((l) => l.endsWith(lastPartAndPort)),
        shown,
      ).toBe(true);
      // Each line after the first starts at a dot of the host, or follows the scheme's //.
      lines.slice(1).forEach((l, i) => expect(l.startsWith('.') || lines[i]!.endsWith('//'), shown).toBe(true));
      if (narrow) expect(lines.length, shown).toBeGreaterThan(1);
    }
    await done(w, `layout-estate-${width}`);
  }, 60_000);

  it('lists the client nodes once per region and pool, and a healthy quorum in no warning colour', async () => {
    const w = await open('/', width);
    const { page } = w;
    const table = page.locator('table', { has: page.locator('caption', { hasText: 'Client nodes' }) });
    expect(await table.locator('thead th').first().innerText()).toMatch(/region/i);
    const rows = await table.locator('tbody tr').evaluateAll((trs) =>
      trs.map((tr) =>
        [...tr.children]
          .slice(0, 2)
          .map((c) => c.textContent)
          .join(' / '),
      ),
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows).size).toBe(rows.length);
    const tolerances = page.locator('li.card .badge', { hasText: /^failure tolerance/ });
    expect(await tolerances.count()).toBeGreaterThan(0);
    expect(await page.locator('li.card .badge.warn', { hasText: /^failure tolerance/ }).count()).toBe(0);
    await expect(
      page.locator('li.card', { hasText: '3 voters' }).locator('.badge', { hasText: 'failure tolerance 1' }).first().getAttribute('class'),
    ).resolves.toBe('badge ok');
    // Cards keep their places across a live refresh.
    const order = () => page.locator('li.card h3').allInnerTexts();
    const before = await order();
    const stamp = await page.locator('#status').innerText();
    await page.locator('#status', { hasNotText: stamp }).waitFor({ timeout: 20_000 });
    expect(await order()).toEqual(before);
    await done(w, `layout-estate-tables-${width}`);
  }, 60_000);
});

/** The severities of the first rows of a list on the alerts page. */
const severities = (page: Page, list: 'firing' | 'history') => page.locator(`#${list}`).locator('..').locator('tbody td:nth-child(2)').allInnerTexts();
const names = (page: Page, list: 'firing' | 'history') => page.locator(`#${list}`).locator('..').locator('tbody th a').allInnerTexts();

describe.each(WIDTHS)('the alert history at %i px', (width) => {
  it('lists the criticals first and hides the Watchdog and info alerts one link away', async () => {
    const w = await open('/alerts', width);
    const { page } = w;
    expect(await sideways(page)).toBe(0);
    expect(await severities(page, 'firing')).toEqual(['critical']);
    expect((await severities(page, 'history')).slice(0, 3)).toEqual(['critical', 'critical', 'critical']);
    expect(await names(page, 'history')).not.toContain('Watchdog');
    await page.getByRole('link', { name: 'Show all severities' }).click();
    await page.waitForURL(/show=all/);
    await page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
    expect(await names(page, 'firing')).toContain('Watchdog');
    expect((await severities(page, 'firing'))[0]).toBe('critical');
    expect(await names(page, 'history')).toContain('TeamsOrganizationAccess');
    expect(await sideways(page)).toBe(0);
    await page.getByRole('link', { name: 'Hide those below warning' }).click();
    await page.waitForURL((u) => !u.search.includes('show=all'));
    await page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
    expect(await names(page, 'firing')).not.toContain('Watchdog');
    await done(w, `layout-alerts-${width}`);
  }, 60_000);
});

describe('the alert history without script', () => {
  it('hides the Watchdog and info alerts behind a plain link', async () => {
    const get = async (path: string) => (await fetch(`${v.url}/${path}`)).text();
    const quiet = await get('alerts');
    const firing = (html: string) => /<section aria-labelledby="firing">.*?<\/section>/s.exec(html)![0];
    expect(firing(quiet)).not.toContain('Watchdog');
    const link = /<a href="([^"]*show=all[^"]*)">Show all severities<\/a>/.exec(quiet)![1]!;
    expect(firing(await get(link.replace(/&#38;/g, '&')))).toContain('Watchdog');
  });
});
