import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageLine, startStandInPager, type StandInPager } from '../../simulators/alerting/pager.js';

/** The demo's stand-in pager: keeps what Alertmanager sends, shows it without trusting it. */
let pager: StandInPager;
const seen: string[] = [];
beforeAll(async () => {
  pager = await startStandInPager({ title: 'pager', onPage: (p) => seen.push(...pageLine(p)) });
});
afterAll(() => pager.close());

const notification = (labels: Record<string, string>, status = 'firing') => ({
  status,
  groupKey: '{}:{alertname="X"}',
  alerts: [{ status, labels: { alertname: 'X', severity: 'critical', ...labels }, annotations: { summary: 'sum <b>mary</b>' } }],
});

describe('the stand-in pager', () => {
  it('keeps each notification and shows it as JSON and as a page, sender strings escaped', async () => {
    const res = await fetch(pager.url, { method: 'POST', body: JSON.stringify(notification({ target: '<script>alert(1)</script>' })) });
    expect(res.status).toBe(200);
    const pages = (await (await fetch(`${pager.url}/pages`)).json()) as Array<{ alerts: Array<{ labels: Record<string, string> }> }>;
    expect(pages.at(-1)!.alerts[0]!.labels.target).toBe('<script>alert(1)</script>');
    const html = await (await fetch(`${pager.url}/`)).text();
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;script&#62;');
    expect(html).not.toContain('<b>mary</b>');
  });

  it('says each page in one line, with no control characters for the terminal', async () => {
    await fetch(pager.url, { method: 'POST', body: JSON.stringify(notification({ target: 'a\u001b[31mred\nb' })) });
    const line = seen.at(-1)!;
    expect(line).toMatch(/^PAGE X target=a\?\[31mred\?b$/);
  });

  it('refuses a body that is not a notification, keeping nothing', async () => {
    const before = pager.pages().length;
    const res = await fetch(pager.url, { method: 'POST', body: 'not json' });
    expect(res.status).toBe(400);
    expect(pager.pages().length).toBe(before);
  });
});
