import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfig } from '../../simulators/demo-config.js';
import type { AgentSimulator } from '../../simulators/agent/index.js';
import { demoSecretsScenario, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { admin } from '../helpers/agent-sim.js';
import { notification, post, type NotificationSpec } from '../helpers/alertmanager.js';
import { startVigil, type VigilProcess } from '../helpers/process.js';
import { freePort } from '../helpers/processes.js';
import { launch, screenshot, seriousA11yViolations, watchedPage, type WatchedPage } from './ui/browser.js';
import { buildUi, startDemoUpstreams, type DemoUpstreams } from './ui/demo-upstreams.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The status pages in a real browser (Debian's Chromium), against vigil watching the demo's
 * simulators with the demo's schedules (every 5 s): faults appear live, notifications land in the
 * history, filters and paging work, hostile labels stay text, no console error, no serious axe
 * finding. Screenshots of each view go to test-artifacts/ui/.
 */
const INTERVAL_MS = 5000;
/** The UI polls every 2.5 s: a fault is on the page within two collections and one poll. */
const FAULT_SHOWN_MS = 2 * INTERVAL_MS + 2500;
const WEBHOOK_TOKEN = 'ui-webhook-token-0123456789';
const READ_TOKEN = 'ui-read-token-9876543210';

const dir = tempDir('vigil-ui-');
let secrets: SecretsSimulator;
let agents: AgentSimulator;
let upstreams: DemoUpstreams;
let vigil: VigilProcess;
let url = '';
let browser: Browser;
let context: BrowserContext;

const send = async (spec: NotificationSpec) => {
  const r = await post(url, notification(spec), { headers: { authorization: `Bearer ${WEBHOOK_TOKEN}` } });
  expect(r.status).toBe(200);
};

async function open(path: string): Promise<WatchedPage> {
  const w = await watchedPage(context);
  await w.page.goto(`${url}${path}`);
  // The compiled front end ran and its first poll answered.
  await w.page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
  return w;
}

async function judge(w: WatchedPage, name: string): Promise<void> {
  await screenshot(w.page, name);
  expect(await seriousA11yViolations(w.page)).toEqual([]);
  expect(w.problems).toEqual([]);
}

beforeAll(async () => {
  buildUi();
  upstreams = await startDemoUpstreams(dir, demoSecretsScenario());
  ({ secrets, agents } = upstreams);
  const { teams, organization, file } = upstreams;
  // One cluster whose node list vigil may read, so the page shows its three nodes.
  const files = { ...upstreams.files, secretsTokenFiles: { 'perf-primary': file('perf-primary-token', secrets.cluster('perf-primary').rootToken) } };
  const sinkAuth = `  bearer_token_file: ${file('webhook-token', WEBHOOK_TOKEN)}\n  read_token_file: ${file('read-token', READ_TOKEN)}\n`;
  const config = file('vigil.yml', demoConfig({ secrets, agents, teams, organization }, files) + sinkAuth);
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  vigil = startVigil([`--config.file=${config}`, `--web.listen-address=127.0.0.1:${port}`, '--log.format=json']);
  await vigil.waitFor(/"msg":"alert sink ready"/);
  browser = await launch();
  // The history pages need the read token, as the read API does; the browser sends it on every request.
  context = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${READ_TOKEN}` }, viewport: { width: 1280, height: 900 } });
}, 120_000);

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await browser?.close().catch(() => undefined);
  await vigil?.stop();
  await upstreams?.close();
}, 60_000);

describe('the estate view', () => {
  it('shows an injected fault on the open page within two collection intervals, without a reload', async () => {
    const w = await open('/');
    const { page } = w;
    await page.evaluate(() => ((globalThis as unknown as { kept: number }).kept = 1));
    const dp = secrets.cluster('dr-primary').url;
    const disconnect = await fetch(`${dp}/_sim/replication/dr/secondaries/dr-secondary/disconnect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(disconnect.status, await disconnect.text()).toBe(200);
    expect((await admin(agents, 'server-1', 'members/server-2.global', { status: 'failed' })).ok).toBe(true);
    const problems = page.locator('#live [role="alert"]');
    await problems.getByText('dr secondary dr-secondary disconnected').waitFor({ timeout: FAULT_SHOWN_MS });
    await page.locator('#live strong', { hasText: 'server-2.global' }).first().waitFor({ timeout: FAULT_SHOWN_MS });
    expect(await page.evaluate(() => (globalThis as unknown as { kept?: number }).kept)).toBe(1);
    await judge(w, 'estate');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'estate-dark');
    expect(await seriousA11yViolations(page)).toEqual([]); // contrast holds in dark mode too
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'estate-phone');
    await page.close();
  }, 90_000);
});

describe('the estate view’s grouping', () => {
  it('shows a sealed cluster as one problem with its consequences under it, and folds long lists with a count', async () => {
    const w = await open('/');
    const { page } = w;
    const ps = secrets.cluster('perf-secondary').url;
    const seal = (sealed: boolean) =>
      fetch(`${ps}/_sim/seal`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sealed }) });
    expect((await seal(true)).status).toBe(200);
    const box = page.locator('#live [role="alert"]');
    const lines = box.locator(':scope > ul > li', { has: page.locator('strong', { hasText: /^perf-secondary$/ }) });
    const line = lines.first();
    await line.getByText(/sealed \(so its .*replication status cannot be read\)/).waitFor({ timeout: FAULT_SHOWN_MS });
    // Each of its jobs (replication, nodes) is one consequence line.
    await line.locator('.consequences li', { hasText: 'secrets_replication collection down (sealed)' }).waitFor({ timeout: FAULT_SHOWN_MS });
    // One line for the cluster in the summary: the cause, not each thing it causes.
    expect(await lines.count()).toBe(1);
    // The demo organization breaks more access rules than a card lists open.
    const fold = page
      .locator('section', { has: page.locator('#orgs') })
      .locator('details.fold')
      .first();
    await fold.waitFor({ timeout: FAULT_SHOWN_MS });
    const hidden = fold.locator('ul li').first();
    expect(await hidden.isVisible()).toBe(false);
    await fold.locator('summary').click();
    expect(await hidden.isVisible()).toBe(true);
    await judge(w, 'estate-grouped');
    expect((await seal(false)).status).toBe(200);
    await page.close();
  }, 90_000);
});

describe('the estate view’s workload', () => {
  it("names a region's failing job once, under the first agent that lists it, and counts it on the agents' cards", async () => {
    const w = await open('/');
    const { page } = w;
    const jobs = `${agents.agent('server-1').url}/_sim/jobs/default/web/fail`;
    expect((await fetch(jobs, { method: 'POST', body: JSON.stringify({ every_ms: 300 }) })).status).toBe(200);
    const lines = page.locator('#live [role="alert"] > ul > li', { hasText: /job web: \d+ allocations failed or lost lately/ });
    await lines.first().waitFor({ timeout: FAULT_SHOWN_MS });
    // Both agents of the region list it: one line, the other agent named under it.
    expect(await lines.count()).toBe(1);
    await lines.locator('.consequences li', { hasText: /also reported by agent/ }).waitFor({ timeout: FAULT_SHOWN_MS });
    const card = page.locator('#live li.card', { has: page.locator('h3', { hasText: /^client-1/ }) });
    expect(await card.locator('.workload-summary').innerText()).toContain('1 job with problems');
    await judge(w, 'estate-workload');
    expect((await fetch(jobs, { method: 'DELETE' })).status).toBeLessThan(300);
    await page.close();
  }, 90_000);
});

describe('the estate view’s nodes', () => {
  it('shows each node of a cluster live, a sealed standby in red and a hostile version as text', async () => {
    const w = await open('/');
    const { page } = w;
    const pp = secrets.cluster('perf-primary');
    const setNode = async (id: string, body: Record<string, unknown>) => {
      const r = await fetch(`${pp.url}/_sim/nodes/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await r.text();
      expect(r.status, text).toBe(200);
      return JSON.parse(text) as { nodes: Array<{ id: string; version: string }> };
    };
    const hostile = '1.17.3<img src=x onerror="window.pwned=3">';
    const before = await setNode('node-3', {});
    const version = before.nodes.find((n) => n.id === 'node-3')!.version;
    await setNode('node-2', { sealed: true });
    await setNode('node-3', { version: hostile });
    const nodes = page.locator('section', { has: page.locator('#secrets') }).locator('table', { has: page.locator('caption', { hasText: 'Nodes' }) });
    const row = (id: string) => nodes.locator('tbody tr', { has: page.locator('th', { hasText: /^perf-primary$/ }) }).filter({ hasText: pp.nodes.get(id)! });
    await row('node-2').locator('.badge.bad', { hasText: 'sealed' }).waitFor({ timeout: FAULT_SHOWN_MS });
    await row('node-3').getByText(hostile).waitFor({ timeout: FAULT_SHOWN_MS });
    expect(await row('node-2').getAttribute('class')).toBe('row-bad');
    expect(await row('node-1').innerText()).toContain('(active)');
    expect(await row('node-1').innerText()).toContain('active');
    // One line per cause: the sealed standby, and under it the failure tolerance it costs.
    const sealedLine = page.locator('#live [role="alert"] > ul > li', { hasText: `node node-2 (${pp.nodes.get('node-2')!}) sealed` });
    await sealedLine.locator('.consequences li', { hasText: 'raft failure tolerance 0' }).waitFor({ timeout: FAULT_SHOWN_MS });
    const card = page.locator('#live li.card', { has: page.locator('h3', { hasText: /^perf-primary$/ }) });
    expect(await card.locator('.nodes-summary').innerText()).toMatch(/active node .* · 3 voters · failure tolerance \d/);
    const injected = await page.evaluate(() => {
      const g = globalThis as unknown as { pwned?: number; document: { querySelectorAll(s: string): { length: number } } };
      return { pwned: g.pwned, elements: g.document.querySelectorAll('main img').length };
    });
    expect(injected).toEqual({ pwned: undefined, elements: 0 });
    await judge(w, 'estate-nodes');
    await setNode('node-2', { sealed: false });
    await setNode('node-3', { version });
    await page.close();
  }, 90_000);
});

describe('the alert views', () => {
  it('shows a posted notification live, with hostile label values as text, and its timeline', async () => {
    const w = await open('/alerts');
    const { page } = w;
    const script = '<script>window.pwned=1</script>';
    const img = '"><img src=x onerror="window.pwned=2">';
    await send({
      receiver: 'pager',
      groupKey: 'hostile',
      alerts: [{ fingerprint: 'abc123', alertname: 'UiHostileLabels', severity: 'critical', labels: { instance: script, note: img } }],
    });
    await page.locator('#live a', { hasText: 'UiHostileLabels' }).first().waitFor({ timeout: 20_000 });
    await expect(page.getByText(script).first().isVisible()).resolves.toBe(true);
    const injected = await page.evaluate(() => {
      const g = globalThis as unknown as { pwned?: number; document: { querySelectorAll(s: string): { length: number } } };
      return { pwned: g.pwned, elements: g.document.querySelectorAll('main script, main img').length };
    });
    expect(injected).toEqual({ pwned: undefined, elements: 0 });
    await judge(w, 'alerts');

    await page.locator('#live a', { hasText: 'UiHostileLabels' }).first().click();
    await page.waitForURL(`${url}/alerts/abc123`);
    await page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
    await send({
      receiver: 'pager',
      groupKey: 'hostile',
      alerts: [{ fingerprint: 'abc123', alertname: 'UiHostileLabels', severity: 'critical', status: 'resolved', labels: { instance: script, note: img } }],
    });
    // The resolution arrives as a second transition, live.
    await page.locator('#live tbody tr').nth(1).getByText('resolved').waitFor({ timeout: 20_000 });
    expect(await page.locator('#live a', { hasText: 'runbook' }).count()).toBe(0);
    await expect(page.locator('#live a', { hasText: 'source' }).getAttribute('href')).resolves.toBe('http://prometheus:9090/graph');
    await judge(w, 'timeline');
    await page.close();
  }, 90_000);

  it('filters by severity and receiver from the keyboard, and pages over the cursor', async () => {
    for (let i = 0; i < 30; i++) {
      await send({
        receiver: i % 3 ? 'mail' : 'oncall',
        groupKey: `p${i}`,
        alerts: [{ fingerprint: `page${String(i).padStart(2, '0')}`, alertname: `Paged${i}`, severity: i % 2 ? 'warning' : 'info' }],
      });
    }
    const w = await open('/alerts');
    const { page } = w;
    await page.selectOption('select[name="severity"]', 'info');
    await page.locator('input[name="receiver"]').focus();
    await page.keyboard.type('oncall');
    await page.keyboard.press('Enter');
    await page.waitForURL(/severity=info/);
    await page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
    const history = page.locator('#history').locator('..');
    const severities = await history.locator('tbody td:nth-child(2)').allInnerTexts();
    expect(severities.length).toBe(15);
    expect(new Set(severities)).toEqual(new Set(['info']));
    const receivers = await page.locator('#notifications').locator('..').locator('tbody td:nth-child(2)').allInnerTexts();
    expect(receivers.length).toBe(10);
    expect(new Set(receivers)).toEqual(new Set(['oncall']));

    await page.goto(`${url}/alerts?severity=warning`);
    const names = () => history.locator('tbody th a').allInnerTexts();
    const first = await names();
    expect(first).toHaveLength(15);
    await page.goto(`${url}/alerts?receiver=mail`);
    const notes = page.locator('#notifications').locator('..');
    const firstNotes = await notes.locator('tbody tr').allInnerTexts();
    expect(firstNotes).toHaveLength(20);
    // Every severity: the info alerts are half of these pages.
    await page.goto(`${url}/alerts?show=all`);
    const page1 = await names();
    expect(page1).toHaveLength(25);
    await page.locator('a[rel="next"]', { hasText: 'older alerts' }).click();
    await page.waitForURL(/acursor=/);
    await page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
    const page2 = await names();
    expect(page2.length).toBeGreaterThan(0);
    expect(page2.filter((n) => page1.includes(n))).toEqual([]);
    await judge(w, 'alerts-paged');
    await page.close();
  }, 90_000);

  it('lists what is firing by severity, then start: an hour-old critical above a warning that started a second ago', async () => {
    const startedAgo = (ms: number) => new Date(Date.now() - ms).toISOString();
    await send({
      groupKey: 'order-critical',
      alerts: [{ fingerprint: 'order-critical', alertname: 'UiOrderCritical', severity: 'critical', startsAt: startedAgo(3_600_000) }],
    });
    const w = await open('/alerts');
    const { page } = w;
    // The warning arrives while the page is open: the live re-render keeps the order the server rendered.
    await send({
      groupKey: 'order-warning',
      alerts: [{ fingerprint: 'order-warning', alertname: 'UiOrderWarning', severity: 'warning', startsAt: startedAgo(1000) }],
    });
    const firing = page.locator('#firing').locator('..');
    await firing.locator('tbody th a', { hasText: 'UiOrderWarning' }).waitFor({ timeout: 20_000 });
    const names = await firing.locator('tbody th a').allInnerTexts();
    expect(names).toContain('UiOrderCritical');
    expect(names.indexOf('UiOrderCritical')).toBeLessThan(names.indexOf('UiOrderWarning'));
    const severities = await firing.locator('tbody td:nth-child(2)').allInnerTexts();
    const rank = (severity: string) => {
      const i = ['critical', 'warning', 'info'].indexOf(severity);
      return i < 0 ? 3 : i;
    };
    expect(severities).toEqual([...severities].sort((x, y) => rank(x) - rank(y)));
    await page.reload();
    await page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
    const served = await firing.locator('tbody th a').allInnerTexts();
    expect(served.indexOf('UiOrderCritical')).toBeLessThan(served.indexOf('UiOrderWarning'));
    await judge(w, 'alerts-by-severity');
    await page.close();
  }, 90_000);
});
