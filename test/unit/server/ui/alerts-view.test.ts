import { describe, expect, it } from 'vitest';
import { apiQueries, renderAlerts, renderTimeline, type AlertsData } from '../../../../src/server/ui/alerts-view.js';
import type { AlertView, Timeline } from '../../../../src/sink/read-api.js';

/** The alert history pages: firing now, filters and paging, notifications, one alert's timeline. */

const NOW = Date.parse('2026-11-23T10:00:00Z');

const alert = (a: Partial<AlertView>): AlertView => ({
  fingerprint: 'fp1',
  alertname: 'SecretsSecondaryDisconnected',
  state: 'firing',
  severity: 'critical',
  labels: { alertname: 'SecretsSecondaryDisconnected', severity: 'critical', secondary: 'west' },
  annotations: { summary: 'A secondary is disconnected.', runbook_url: 'https://example.org/runbooks#secondary' },
  startsAt: '2026-11-23T09:30:00.000Z',
  resolvedAt: null,
  generatorURL: 'http://prometheus:9090/graph?g0.expr=up',
  receiver: 'pager',
  firstSeen: '2026-11-23T09:30:10.000Z',
  lastSeen: '2026-11-23T09:59:00.000Z',
  notifications: 3,
  ...a,
});

const hostile = alert({
  fingerprint: 'fp"2',
  alertname: '<script>alert(1)</script>',
  state: 'resolved',
  severity: 'warning',
  labels: { instance: `"><img src=x onerror=alert(1)>` },
  annotations: { runbook_url: 'javascript:alert(1)' },
  resolvedAt: '2026-11-23T09:45:00.000Z',
  generatorURL: 'javascript:alert(2)',
});

const data = (q: Record<string, string> = {}): AlertsData => ({
  query: q,
  firing: { alerts: [alert({})], nextCursor: null },
  history: { alerts: [alert({}), hostile], nextCursor: 'CUR' },
  notifications: {
    notifications: [
      {
        id: 7,
        receivedAt: '2026-11-23T09:59:00.000Z',
        receiver: 'pa<ger',
        status: 'firing',
        alertCount: 1,
        duplicates: 0,
        payload: { alerts: [{ fingerprint: 'fp1', labels: { alertname: '<i>x</i>' } }] },
      },
    ],
    nextCursor: null,
  },
  alertPath: {
    watchdog: { alertname: 'Watchdog', healthy: true, lastSeen: '2026-11-23T09:59:30.000Z', silenceSeconds: 30, maxSilenceSeconds: 300 },
    lastHour: { notifications: 12, more: false },
    rejected: { auth: 2, json: 0 },
  },
});

describe('apiQueries', () => {
  it('sends each filter to the list it applies to and each cursor to its own list', () => {
    const q = apiQueries({ alertname: 'A', severity: 'critical', state: 'resolved', receiver: 'pager', since: '1', until: '2', acursor: 'a', ncursor: 'n' });
    expect(q.firing).toBe('alertname=A&severity=critical&state=firing&limit=100');
    expect(q.history).toBe('alertname=A&severity=critical&state=resolved&limit=25&cursor=a');
    expect(q.notifications).toBe('receiver=pager&since=1&until=2&limit=25&cursor=n');
  });

  it('leaves out the alerts below warning unless the page shows all or searches one name or severity', () => {
    expect(apiQueries({}).firing).toBe('state=firing&limit=100&min_severity=warning');
    expect(apiQueries({ state: 'resolved' }).history).toBe('state=resolved&limit=25&min_severity=warning');
    expect(apiQueries({ show: 'all' }).history).toBe('limit=25');
    expect(apiQueries({ alertname: 'Watchdog' }).firing).toBe('alertname=Watchdog&state=firing&limit=100');
    expect(apiQueries({ severity: 'info' }).history).toBe('severity=info&limit=25');
  });
});

describe('the filter of the alerts below warning', () => {
  const render = (query: Record<string, string>) => renderAlerts(data(query), { now: NOW });

  it('is one link away, keeping the other filters and starting the lists over', () => {
    expect(render({ state: 'firing', acursor: 'x' })).toContain('are hidden. <a href="alerts?state=firing&#38;show=all">Show all severities</a>');
    expect(render({ show: 'all', receiver: 'pager' })).toContain('All severities shown. <a href="alerts?receiver=pager">Hide those below warning</a>');
    expect(render({ severity: 'info' })).not.toContain('class="quiet"');
  });
});

describe('renderAlerts', () => {
  const html = renderAlerts(data({ severity: 'critical' }), { now: NOW });

  it('shows the alert path: Watchdog, notifications in the last hour, rejected posts by reason', () => {
    expect(html).toContain('Alert path healthy');
    expect(html).toContain('notifications in the last hour: 12');
    expect(html).toContain('rejected posts: auth 2</p>');
  });

  it('shows firing alerts with severity, since when, for how long, labels and links', () => {
    const firing = html.slice(html.indexOf('id="firing"'), html.indexOf('id="history"'));
    expect(firing).toContain('<a href="alerts/fp1">SecretsSecondaryDisconnected</a>');
    expect(firing).toContain('<span class="badge bad">critical</span>');
    expect(firing).toContain('30 min ago');
    expect(firing).toContain('<span class="k">secondary</span>=<span class="v">west</span>');
    expect(firing).toContain('href="https://example.org/runbooks#secondary"');
    expect(firing).toContain('href="http://prometheus:9090/graph?g0.expr=up"');
  });

  it('shows hostile names, labels and links as text', () => {
    expect(html).not.toMatch(/<script|<img|<i>|javascript:/);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('href="alerts/fp%222"');
    expect(html).toContain('pa&#60;ger');
  });

  it('pages with the filters kept, and offers the way back to the newest', () => {
    expect(html).toContain('<a href="alerts?severity=critical&#38;acursor=CUR" rel="next">older alerts »</a>');
    const paged = renderAlerts(data({ severity: 'critical', acursor: 'CUR' }), { now: NOW });
    expect(paged).toContain('<a href="alerts?severity=critical">« newest</a>');
  });

  it('says when the alert path is broken', () => {
    const d = data();
    d.alertPath.watchdog = { ...d.alertPath.watchdog, healthy: false, lastSeen: null };
    expect(renderAlerts(d, { now: NOW })).toContain('<div class="alert-box bad" role="alert"><h2 id="path">Alert path BROKEN</h2>');
  });

  it('does not call a path healthy whose Watchdog has never arrived (still within its allowed silence)', () => {
    const d = data();
    d.alertPath.watchdog = { ...d.alertPath.watchdog, healthy: true, lastSeen: null };
    const html = renderAlerts(d, { now: NOW });
    expect(html).toContain('Alert path waiting for the first Watchdog');
    expect(html).not.toContain('Alert path healthy');
  });
});

describe('renderTimeline', () => {
  const t: Timeline = {
    alert: alert({ state: 'resolved', resolvedAt: '2026-11-23T09:50:00.000Z' }),
    transitions: [
      { state: 'firing', at: '2026-11-23T09:30:00.000Z', startsAt: '2026-11-23T09:30:00.000Z', endsAt: null, notificationId: 1 },
      { state: 'resolved', at: '2026-11-23T09:40:00.000Z', startsAt: '2026-11-23T09:30:00.000Z', endsAt: '2026-11-23T09:40:00.000Z', notificationId: 2 },
      { state: 'firing', at: '2026-11-23T09:45:00.000Z', startsAt: '2026-11-23T09:45:00.000Z', endsAt: null, notificationId: 3 },
      { state: 'resolved', at: '2026-11-23T09:50:00.000Z', startsAt: '2026-11-23T09:45:00.000Z', endsAt: '2026-11-23T09:50:00.000Z', notificationId: 4 },
    ],
    transitionsOmitted: 3,
  };
  const html = renderTimeline(t, { now: NOW });

  it('lists every transition with how long it lasted until the next', () => {
    const rows = html.match(/<tr><td><span class="badge (bad|ok)">(firing|resolved)<\/span><\/td>.*?<\/tr>/g) ?? [];
    expect(rows).toHaveLength(4);
    expect(rows.map((r) => /<\/time><\/td><td>([^<]*)/.exec(r)?.[1]?.trim())).toEqual(['10 min', '5 min', '5 min', '—']);
    expect(rows[3]).toContain('(current)');
    expect(html).toContain('3 older transitions not shown.');
  });

  it('links the runbook and the generator', () => {
    expect(html).toContain('>runbook</a>');
    expect(html).toContain('>source</a>');
  });
});
