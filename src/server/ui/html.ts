/**
 * HTML building blocks of the status pages, shared by the server (first render, no script needed)
 * and the browser bundle (live updates). Every string that came from an upstream, a sender or a
 * label goes through `esc`; nothing else builds markup from data.
 */

export const esc = (s: unknown): string => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** How the page renders times: `now` for ages, `local` for the reader's own zone (browser only). */
export interface Clock {
  now: number;
  local?: ((ms: number) => string) | undefined;
}

export function ago(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

const utc = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');

/** A time both relative and absolute: "3 min ago", UTC, and (in a browser) local. */
export function when(iso: string | null | undefined, clock: Clock): string {
  if (!iso) return '<span class="muted">never</span>';
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return esc(iso);
  const d = (clock.now - ms) / 1000;
  const rel = d >= 0 ? `${ago(d)} ago` : `in ${ago(-d)}`;
  const local = clock.local ? ` · ${esc(clock.local(ms))} local` : '';
  return `<time datetime="${esc(iso)}" title="${esc(utc(ms))}">${rel}<span class="abs"> · ${esc(utc(ms))}${local}</span></time>`;
}

/** The duration between two times, for how long an alert fired. */
export const lasted = (fromIso: string, toIso: string | null, now: number) => ago(((toIso ? Date.parse(toIso) : now) - Date.parse(fromIso)) / 1000);

export type Tone = 'bad' | 'warn' | 'ok' | 'muted';

export const badge = (text: string, tone: Tone) => `<span class="badge ${tone}">${esc(text)}</span>`;

/**
 * A raft quorum's failure tolerance: red at 0, amber below what its voters allow ((voters - 1) / 2,
 * floored), and plain "ok" at it, so a healthy three-voter cluster's tolerance of 1 is not a warning.
 */
export function toleranceBadge(tolerance: number, voters: number | null): string {
  const allowed = voters === null ? null : Math.floor((voters - 1) / 2);
  return badge(`failure tolerance ${tolerance}`, tolerance <= 0 ? 'bad' : allowed !== null && tolerance < allowed ? 'warn' : 'ok');
}

/**
 * A node's address with line break opportunities after `//` and before each `.` of its host, the
 * host's last part kept with its `:port` (a narrow card never shows `node-1.example.com:82` / `00`).
 */
export function address(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)?([^/]*)(.*)$/i.exec(url);
  const [scheme = '', host = '', path = ''] = m ? m.slice(1) : ['', url, ''];
  const parts = host.split(/(?=\.)/).map(esc);
  return `<span class="addr">${scheme ? `${esc(scheme)}<wbr>` : ''}${parts.join('<wbr>')}${path ? `<wbr>${esc(path)}` : ''}</span>`;
}

export const section = (id: string, title: string, body: string, count?: string) =>
  `<section aria-labelledby="${id}"><h2 id="${id}">${esc(title)}${count ? ` <span class="count">${esc(count)}</span>` : ''}</h2>${body}</section>`;

/** A table in a box that scrolls sideways on a narrow screen, reachable from the keyboard to scroll it. */
export const table = (caption: string, head: string[], rows: string[], empty = 'nothing to show') =>
  rows.length === 0
    ? `<p class="muted">${esc(empty)}</p>`
    : `<div class="scroll" tabindex="0" role="region" aria-label="${esc(caption)}"><table><caption class="sr">${esc(caption)}</caption><thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;

export const labelList = (labels: Record<string, string>, skip: readonly string[] = []) =>
  `<ul class="labels">${Object.entries(labels)
    .filter(([k]) => !skip.includes(k))
    .map(([k, v]) => `<li><span class="k">${esc(k)}</span>=<span class="v">${esc(v)}</span></li>`)
    .join('')}</ul>`;

/** Only http(s) links are followed: a `javascript:` URL in an annotation stays text. */
export const safeLink = (url: string | undefined, text: string) =>
  url && /^https?:\/\//i.test(url) ? `<a href="${esc(url)}" rel="noreferrer noopener">${esc(text)}</a>` : '';

export const severityTone = (s: string): Tone => (s === 'critical' ? 'bad' : s === 'warning' ? 'warn' : 'muted');

/** The page shell: one stylesheet, one script, no inline code (the Content-Security-Policy allows none). */
export function page(opts: {
  title: string;
  view: string;
  nav: 'estate' | 'alerts';
  version: string;
  body: string;
  api: string;
  controls?: string;
  metricsPath?: string;
  base?: string;
}): string {
  const link = (href: string, name: string, key: 'estate' | 'alerts') => `<a href="${href}"${opts.nav === key ? ' aria-current="page"' : ''}>${name}</a>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>${esc(opts.title)} · vigil</title>
<base href="${esc(opts.base ?? '/')}"><link rel="stylesheet" href="ui/style.css"><link rel="icon" href="ui/favicon.svg" type="image/svg+xml"><script type="module" src="ui/app.js"></script></head>
<body><a class="skip" href="#live">Skip to content</a>
<header><span class="brand">vigil</span><nav aria-label="Views">${link('./', 'Estate', 'estate')}${link('alerts', 'Alerts', 'alerts')}<a href="${esc((opts.metricsPath ?? '/metrics').replace(/^\//, ''))}">Metrics</a></nav>
<span class="meta" id="status" role="status" aria-live="polite">v${esc(opts.version)}</span></header>
${opts.controls ?? ''}<main id="live" data-view="${esc(opts.view)}" data-api="${esc(opts.api)}" tabindex="-1">${opts.body}</main>
</body></html>
`;
}
