/**
 * Every HTTP endpoint vigil serves, as users read it in the README: the table is generated from
 * this list (`npm run docs`), and a test walks the routers the server is made of and fails when a
 * route is missing here or listed here and not served.
 */
export interface HttpRoute {
  method: 'GET' | 'POST';
  path: string;
  what: string;
}

export const HTTP_ROUTES: readonly HttpRoute[] = [
  {
    method: 'GET',
    path: '/metrics',
    what: 'Prometheus text format 0.0.4, or OpenMetrics when the scraper asks for it; gzip (one member, any reader takes it whole) when asked (`Accept-Encoding: gzip`). `--web.telemetry-path` moves it',
  },
  { method: 'GET', path: '/healthz', what: '200 while the process is alive' },
  { method: 'GET', path: '/-/healthy', what: 'the same, as every Prometheus component serves it' },
  {
    method: 'GET',
    path: '/readyz',
    what: '200 once the configuration is loaded, every job has run once and the alert sink can store, else 503 with the pending jobs and what is unavailable (the fix, e.g. `chown -R 1000:1000 /var/lib/vigil`)',
  },
  { method: 'GET', path: '/-/ready', what: 'the same, as every Prometheus component serves it' },
  {
    method: 'GET',
    path: '/',
    what: 'the estate page: problems first (one line per cause), the replication topology, agents, organizations, targets ([docs/ui.md](docs/ui.md))',
  },
  { method: 'GET', path: '/api/v1/estate', what: "the estate page's JSON" },
  { method: 'GET', path: '/api/v1/targets', what: "every job's last collection and error, as JSON" },
  { method: 'GET', path: '/ui/*', what: "the pages' script, stylesheet and icon" },
  { method: 'POST', path: '/-/reload', what: 're-read the configuration and web config files (with `--web.enable-lifecycle`; else 403)' },
  {
    method: 'POST',
    path: '/-/collect',
    what: 'run every job now (with `--web.enable-lifecycle`; else 403); answers when all are done, with a JSON summary; a call during a run joins it, and one within `--web.collect-min-interval` (5s) after a run ended gets the summary of that run',
  },
  { method: 'POST', path: '/webhook/alertmanager', what: 'the alert sink, where Alertmanager posts (when `alert_sink` is configured)' },
  { method: 'GET', path: '/alerts', what: "the alert sink's history page: firing now, every alert and notification, filters, paging" },
  { method: 'GET', path: '/alerts/:fingerprint', what: "one alert's timeline" },
  { method: 'GET', path: '/api/v1/alerts', what: "the sink's alerts, filtered and paged" },
  { method: 'GET', path: '/api/v1/alerts/:fingerprint/timeline', what: "one alert's transitions" },
  { method: 'GET', path: '/api/v1/notifications', what: 'every notification stored, as Alertmanager sent it' },
  { method: 'GET', path: '/api/v1/health', what: "the alert path's health: 200 while the Watchdog keeps arriving, else 503" },
  { method: 'GET', path: '/api/v1/alert-path', what: 'the alert path box of the pages, as JSON' },
];

/** The README's endpoint table. */
export function renderHttpRoutesTable(): string {
  const rows = HTTP_ROUTES.map((e) => `| \`${e.method === 'GET' ? '' : `${e.method} `}${e.path}\` | ${e.what} |`);
  return ['| route | what |', '|---|---|', ...rows].join('\n');
}
