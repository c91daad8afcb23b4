import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { Router, type Request, type Response } from 'express';
import type { Daemon as FullDaemon } from '../daemon.js';

type Daemon = Pick<FullDaemon, 'snapshot' | 'targets'>;
import type { SinkRead } from '../sink/read-api.js';
import { buildEstate } from './estate.js';
import type { Estate } from './estate-model.js';
import { apiQueries, renderAlerts, renderTimeline, type AlertPath, type AlertsData } from './ui/alerts-view.js';
import { renderEstate } from './ui/estate-view.js';
import { esc, page } from './ui/html.js';

/**
 * What serves the status pages: each view rendered on the server (works with curl and without
 * JavaScript) from the same values the JSON API answers, and the compiled front end that keeps them
 * live by polling that API.
 */

export interface UiDeps {
  daemon: Daemon;
  version: string;
  /** Where `/metrics` is served (`--web.telemetry-path`), for the pages' link. */
  metricsPath?: string;
  /** The path users reach vigil under (`--web.external-url`), ending in `/`: every link is relative to it. */
  base?: string;
  now?: () => number;
  /** The directory `/ui/` serves (app.js, style.css, favicon.svg) [default: the one `npm run build` writes, when there is one]. */
  assets?: string;
}

/** The bundle and stylesheet `npm run build` writes (dist/ui); a run from the sources reads the built ones. */
function assetsDir(): string | undefined {
  const candidates = [new URL('../ui/', import.meta.url), new URL('../../dist/ui/', import.meta.url)];
  const found = candidates.find((u) => existsSync(new URL('app.js', u)));
  return found ? fileURLToPath(found) : undefined;
}

const html = (res: Response, body: string) => res.type('html').setHeader('cache-control', 'no-store').send(body);

export function estateOf(deps: UiDeps): Estate {
  return buildEstate(deps.daemon.snapshot().text, deps.daemon.targets(), (deps.now ?? Date.now)());
}

export function uiRoutes(deps: UiDeps): Router {
  const router = Router();
  const dir = deps.assets ?? assetsDir();
  if (dir) router.use('/ui', express.static(dir, { index: false, fallthrough: false, maxAge: 0 }));
  router.get('/api/v1/estate', (_req, res) => void res.setHeader('cache-control', 'no-store').json(estateOf(deps)));
  router.get('/', (_req, res) => {
    const e = estateOf(deps);
    html(
      res,
      page({
        title: e.problems ? `${e.problems} problems` : 'all clear',
        view: 'estate',
        nav: 'estate',
        version: deps.version,
        metricsPath: deps.metricsPath,
        base: deps.base,
        api: 'api/v1/estate',
        body: renderEstate(e, { now: Date.parse(e.generatedAt) }),
      }),
    );
  });
  return router;
}

const HOUR_MS = 3600_000;
const FILTERS = ['alertname', 'severity', 'state', 'receiver', 'since', 'until', 'show', 'acursor', 'ncursor'] as const;

function filterForm(q: Record<string, string>): string {
  const input = (name: string, label: string, placeholder = '') =>
    `<label>${label}<input name="${name}" value="${esc(q[name] ?? '')}" placeholder="${esc(placeholder)}" autocomplete="off"></label>`;
  const sel = (name: string, label: string, options: string[]) =>
    `<label>${label}<select name="${name}"><option value="">any</option>${options.map((o) => `<option${q[name] === o ? ' selected' : ''}>${o}</option>`).join('')}</select></label>`;
  return `<form class="filters" method="get" action="alerts" aria-label="Filter alerts and notifications">${input('alertname', 'Alert name')}${sel('severity', 'Severity', ['critical', 'warning', 'info', 'none'])}${sel('state', 'State', ['firing', 'resolved'])}${input('receiver', 'Receiver')}${input('since', 'Since', 'RFC 3339 or Unix s')}${input('until', 'Until', 'RFC 3339 or Unix s')}${q.show === 'all' ? '<input type="hidden" name="show" value="all">' : ''}<button type="submit">Filter</button> <a href="alerts">clear</a></form>`;
}

/** The page's own query: known keys with one string value each (a repeated key keeps its first). */
function pageQuery(req: Request): Record<string, string> {
  const q: Record<string, string> = {};
  for (const k of FILTERS) {
    const v = req.query[k];
    const s = Array.isArray(v) ? v[0] : v;
    if (typeof s === 'string' && s !== '') q[k] = s;
  }
  return q;
}

type PageFields = Omit<Parameters<typeof page>[0], 'nav' | 'version' | 'metricsPath' | 'base'>;

/** Sends one page of the alert history, with the parts every such page shares. */
function sendAlertPage(deps: UiDeps, res: Response, fields: PageFields): void {
  html(res, page({ ...fields, nav: 'alerts', version: deps.version, metricsPath: deps.metricsPath, base: deps.base }));
}

/** What the alert path shows: the Watchdog, the last hour's notifications, what was refused. */
async function alertPathOf(deps: UiDeps, read: SinkRead, now: () => number): Promise<AlertPath> {
  const h = read.health();
  const hour = await read.notifications({ since: String((now() - HOUR_MS) / 1000), limit: '1000' });
  const parsed = hour.ok ? (JSON.parse(hour.value) as { notifications: unknown[]; nextCursor: string | null }) : { notifications: [], nextCursor: null };
  return {
    watchdog: h.watchdog,
    lastHour: { notifications: parsed.notifications.length, more: parsed.nextCursor !== null },
    rejected: estateOf(deps).alertPath.rejected,
  };
}

/** `/alerts`: what is firing, the history and the notifications, filtered as the query asks. */
async function alertsPage(deps: UiDeps, read: SinkRead, now: () => number, req: Request, res: Response): Promise<void> {
  const q = pageQuery(req);
  const api = apiQueries(q);
  const params = (s: string) => Object.fromEntries(new URLSearchParams(s));
  const [firing, history, notifications] = await Promise.all([
    read.alerts(params(api.firing)),
    read.alerts(params(api.history)),
    read.notifications(params(api.notifications)),
  ]);
  const bad = [firing, history, notifications].find((a) => !a.ok);
  if (bad && !bad.ok) {
    res.status(bad.status);
    const body = `<p class="alert-box bad" role="alert">${esc(bad.body.parameter ?? '')}: ${esc(bad.body.error)}</p>`;
    return sendAlertPage(deps, res, { title: 'bad filter', view: 'error', api: '', controls: filterForm(q), body });
  }
  const data: AlertsData = {
    query: q,
    firing: firing.ok ? firing.value : { alerts: [], nextCursor: null },
    history: history.ok ? history.value : { alerts: [], nextCursor: null },
    notifications: notifications.ok ? JSON.parse(notifications.value) : { notifications: [], nextCursor: null },
    alertPath: await alertPathOf(deps, read, now),
  };
  const title = data.firing.alerts.length ? `${data.firing.alerts.length} firing` : 'alerts';
  sendAlertPage(deps, res, { title, view: 'alerts', api: 'api/v1/', controls: filterForm(q), body: renderAlerts(data, { now: now() }) });
}

/** `/alerts/{fingerprint}`: one alert's timeline. */
async function timelinePage(deps: UiDeps, read: SinkRead, now: () => number, fingerprint: string, res: Response): Promise<void> {
  const t = await read.timeline(fingerprint);
  if (!t.ok) {
    res.status(t.status);
    const body = `<p class="alert-box bad">${esc(t.body.error)}</p><p><a href="alerts">all alerts</a></p>`;
    return sendAlertPage(deps, res, { title: 'unknown alert', view: 'error', api: '', body });
  }
  const api = `api/v1/alerts/${encodeURIComponent(fingerprint)}/timeline`;
  sendAlertPage(deps, res, { title: t.value.alert.alertname, view: 'timeline', api, body: renderTimeline(t.value, { now: now() }) });
}

/** `/alerts`, `/alerts/{fingerprint}` and the alert-path answer, given the sink's read API. */
export function alertPages(deps: UiDeps): (read: SinkRead) => Router {
  const now = deps.now ?? Date.now;
  return (read) => {
    const router = Router();
    router.get('/api/v1/alert-path', async (_req, res) => void res.json(await alertPathOf(deps, read, now)));
    router.get('/alerts', (req, res) => alertsPage(deps, read, now, req, res));
    router.get('/alerts/:fingerprint', (req, res) => timelinePage(deps, read, now, req.params.fingerprint, res));
    return router;
  };
}
