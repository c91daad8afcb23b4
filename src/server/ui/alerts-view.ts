import type { AlertsPage, AlertView, Timeline } from '../../sink/read-api.js';
import { badge, esc, labelList, lasted, safeLink, section, severityTone, table, when, type Clock } from './html.js';

/** The alert history pages: firing now, every alert with filters, notifications, one alert's timeline. */

export interface NotificationItem {
  id: number;
  receivedAt: string;
  receiver: string;
  status: string;
  alertCount: number;
  duplicates: number;
  payload: { alerts?: Array<{ status?: string; fingerprint?: string; labels?: Record<string, string> }> } | null;
}

export interface AlertPath {
  watchdog: { alertname: string; healthy: boolean; lastSeen: string | null; silenceSeconds: number; maxSilenceSeconds: number };
  lastHour: { notifications: number; more: boolean };
  rejected: Record<string, number>;
}

export interface AlertsData {
  query: Record<string, string>;
  firing: AlertsPage;
  history: AlertsPage;
  notifications: { notifications: NotificationItem[]; nextCursor: string | null };
  alertPath: AlertPath;
}

/**
 * The alert lists leave out what is less severe than a warning (info alerts, and the Watchdog's
 * `none`, always firing) unless the page asks for `show=all`, or for one alert name or severity:
 * otherwise a heartbeat and a dozen notes push the criticals below the fold.
 */
const QUIET_BELOW = 'warning';
const searched = (q: Record<string, string>) => Boolean(q.severity || q.alertname);
const quiet = (q: Record<string, string>) => q.show !== 'all' && !searched(q);

/** The line above the lists that says what they leave out, with the one link that shows or hides it. */
function quietLine(q: Record<string, string>): string {
  if (searched(q)) return '';
  return quiet(q)
    ? `<p class="quiet">Alerts below warning (info, none or no severity: the Watchdog among them) are hidden. <a href="${esc(withParam(q, 'show', 'all', CURSORS))}">Show all severities</a></p>`
    : `<p class="quiet">All severities shown. <a href="${esc(withParam(q, 'show', null, CURSORS))}">Hide those below warning</a></p>`;
}

/** Query keys of the page → parameters of the API calls it shows (`acursor`/`ncursor` page each list). */
export function apiQueries(q: Record<string, string>) {
  const pick = (keys: string[], extra: Record<string, string | undefined> = {}) => {
    const out = new URLSearchParams();
    for (const k of keys) if (q[k]) out.set(k, q[k]);
    for (const [k, v] of Object.entries(extra)) if (v) out.set(k, v);
    return out.toString();
  };
  const least = quiet(q) ? QUIET_BELOW : undefined;
  return {
    firing: pick(['alertname', 'severity'], { state: 'firing', limit: '100', min_severity: least }),
    history: pick(['alertname', 'severity', 'state'], { limit: '25', cursor: q.acursor, min_severity: least }),
    notifications: pick(['receiver', 'since', 'until'], { limit: '25', cursor: q.ncursor }),
  };
}

const alertLink = (a: AlertView) => `<a href="alerts/${encodeURIComponent(a.fingerprint)}">${esc(a.alertname || a.fingerprint)}</a>`;
const links = (a: AlertView) => [safeLink(a.annotations.runbook_url, 'runbook'), safeLink(a.generatorURL, 'source')].filter(Boolean).join(' · ');

function alertRow(a: AlertView, clock: Clock): string {
  const st = a.state === 'firing' ? badge('firing', 'bad') : badge('resolved', 'ok');
  return `<tr><th scope="row">${alertLink(a)}<div class="muted small">${esc(a.annotations.summary ?? '')}</div></th><td>${badge(a.severity || 'none', severityTone(a.severity))}</td><td>${st}</td><td>${when(a.startsAt, clock)}</td><td>${lasted(a.startsAt, a.resolvedAt, clock.now)}</td><td>${labelList(a.labels, ['alertname', 'severity'])}</td><td>${links(a)}</td></tr>`;
}

const HEAD = ['alert', 'severity', 'state', 'since', 'for', 'labels', 'links'];

/** The page's list positions: a link that changes what the lists hold starts them over. */
const CURSORS = ['acursor', 'ncursor'];

/** A link to the same page with one parameter changed (paging keeps the filters), and the `drop` ones left out. */
function withParam(q: Record<string, string>, key: string, value: string | null, drop: readonly string[] = []): string {
  const p = new URLSearchParams(Object.entries(q).filter(([k, v]) => v && k !== key && !drop.includes(k)));
  if (value) p.set(key, value);
  const s = p.toString();
  return `alerts${s ? `?${s}` : ''}`;
}

function pager(q: Record<string, string>, key: string, next: string | null, label: string): string {
  const first = q[key] ? `<a href="${esc(withParam(q, key, null))}">« newest</a>` : '';
  const older = next ? `<a href="${esc(withParam(q, key, next))}" rel="next">older ${esc(label)} »</a>` : '';
  return first || older ? `<nav class="pager" aria-label="${esc(label)} pages">${first} ${older}</nav>` : '';
}

export function alertPathBox(p: AlertPath, clock: Clock): string {
  const w = p.watchdog;
  const rejected = Object.entries(p.rejected).filter(([, n]) => n > 0);
  // Within its first allowed silence the Watchdog has not been seen yet: not broken, not proven either.
  const state = !w.healthy ? 'BROKEN' : w.lastSeen === null ? 'waiting for the first Watchdog' : 'healthy';
  return `<div class="alert-box ${w.healthy ? 'ok' : 'bad'}"${w.healthy ? '' : ' role="alert"'}><h2 id="path">Alert path ${state}</h2>
<p>${esc(w.alertname)} last seen ${when(w.lastSeen, clock)} (silent ${esc(w.silenceSeconds)} s, at most ${esc(w.maxSilenceSeconds)} s allowed) · notifications in the last hour: ${esc(p.lastHour.notifications)}${p.lastHour.more ? '+' : ''} · rejected posts: ${
    rejected.length ? rejected.map(([r, n]) => `${esc(r)} ${esc(n)}`).join(', ') : 'none'
  }</p></div>`;
}

function notificationRow(n: NotificationItem, clock: Clock): string {
  const alerts = (n.payload?.alerts ?? []).slice(0, 10).map((a) => {
    const name = a.labels?.alertname ?? a.fingerprint ?? '?';
    return a.fingerprint ? `<a href="alerts/${encodeURIComponent(a.fingerprint)}">${esc(name)}</a>` : esc(name);
  });
  const more = n.alertCount > alerts.length ? ` <span class="muted">+${n.alertCount - alerts.length}</span>` : '';
  return `<tr><td>${when(n.receivedAt, clock)}</td><td>${esc(n.receiver)}</td><td>${badge(n.status, n.status === 'firing' ? 'bad' : 'ok')}</td><td>${alerts.join(', ')}${more}</td><td>${n.duplicates ? esc(n.duplicates) : ''}</td></tr>`;
}

export function renderAlerts(d: AlertsData, clock: Clock): string {
  const firing = d.firing.alerts;
  return `${alertPathBox(d.alertPath, clock)}${quietLine(d.query)}${section(
    'firing',
    'Firing now',
    table(
      'Alerts firing now, most severe first',
      HEAD,
      firing.map((a) => alertRow(a, clock)),
      'Nothing is firing.',
    ),
    `${firing.length}${d.firing.nextCursor ? '+' : ''}`,
  )}${section(
    'history',
    'All alerts',
    table(
      'Alerts, firing first (most severe first), then newest',
      HEAD,
      d.history.alerts.map((a) => alertRow(a, clock)),
      'No alert matches.',
    ) + pager(d.query, 'acursor', d.history.nextCursor, 'alerts'),
  )}${section(
    'notifications',
    'Notification history',
    table(
      'Notifications, newest first',
      ['received', 'receiver', 'status', 'alerts', 'duplicates'],
      d.notifications.notifications.map((n) => notificationRow(n, clock)),
      'No notification matches.',
    ) + pager(d.query, 'ncursor', d.notifications.nextCursor, 'notifications'),
  )}`;
}

export function renderTimeline(t: Timeline, clock: Clock): string {
  const a = t.alert;
  const tr = t.transitions;
  const rows = tr.map((x, i) => {
    const until = tr[i + 1]?.at ?? null;
    return `<tr><td>${badge(x.state, x.state === 'firing' ? 'bad' : 'ok')}</td><td>${when(x.at, clock)}</td><td>${until || x.state === 'firing' ? lasted(x.at, until, clock.now) : '—'}${until ? '' : ' <span class="muted">(current)</span>'}</td><td>${when(x.startsAt, clock)}</td></tr>`;
  });
  const ann = Object.entries(a.annotations)
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`)
    .join('');
  return `<p><a href="alerts">« all alerts</a></p><h1>${esc(a.alertname)} ${badge(a.state, a.state === 'firing' ? 'bad' : 'ok')} ${badge(a.severity || 'none', severityTone(a.severity))}</h1>
<p>Started ${when(a.startsAt, clock)} · ${a.resolvedAt ? `resolved ${when(a.resolvedAt, clock)}` : 'still firing'} · receiver ${esc(a.receiver)} · ${esc(a.notifications)} notifications · ${links(a)}</p>
${labelList(a.labels)}<dl>${ann}</dl>${section('timeline', 'Timeline', table('Firing and resolved transitions, oldest first', ['state', 'at', 'lasted', 'alert start'], rows), `${tr.length}`)}${
    t.transitionsOmitted ? `<p class="muted">${esc(t.transitionsOmitted)} older transitions not shown.</p>` : ''
  }`;
}
