import type { Estate } from '../src/server/estate-model.js';
import type { Timeline } from '../src/sink/read-api.js';
import { apiQueries, renderAlerts, renderTimeline, type AlertsData } from '../src/server/ui/alerts-view.js';
import { renderEstate } from '../src/server/ui/estate-view.js';
import type { Clock } from '../src/server/ui/html.js';
import { Poller } from './poller.js';

/**
 * Keeps a status page live: polls the JSON API the page was rendered from and re-renders its live
 * part with the same functions the server used, paced by the Poller (one request at a time, none
 * while the tab is hidden, backing off on errors).
 */

const live = document.getElementById('live') as HTMLElement;
const status = document.getElementById('status') as HTMLElement;
const clock = (): Clock => ({ now: Date.now(), local: (ms) => new Date(ms).toLocaleString(undefined, { hour12: false }) });

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' });
  if (!res.ok) throw new Error(`${url.split('?')[0]}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

async function render(view: string): Promise<string | undefined> {
  if (view === 'estate') return renderEstate(await getJson<Estate>('api/v1/estate'), clock());
  if (view === 'timeline') return renderTimeline(await getJson<Timeline>(live.dataset.api ?? ''), clock());
  if (view !== 'alerts') return undefined;
  const query = Object.fromEntries(new URLSearchParams(location.search));
  const api = apiQueries(query);
  const [firing, history, notifications, alertPath] = await Promise.all([
    getJson<AlertsData['firing']>(`api/v1/alerts?${api.firing}`),
    getJson<AlertsData['history']>(`api/v1/alerts?${api.history}`),
    getJson<AlertsData['notifications']>(`api/v1/notifications?${api.notifications}`),
    getJson<AlertsData['alertPath']>('api/v1/alert-path'),
  ]);
  return renderAlerts({ query, firing, history, notifications, alertPath }, clock());
}

async function refresh(): Promise<void> {
  try {
    const next = await render(live.dataset.view ?? '');
    if (next === undefined) return;
    if (next !== live.innerHTML) live.innerHTML = next;
    status.textContent = `live · updated ${new Date().toLocaleTimeString(undefined, { hour12: false })}`;
    status.classList.remove('stale');
  } catch (e) {
    status.textContent = `not updating: ${(e as Error).message}`;
    status.classList.add('stale');
    throw e;
  }
}

const poller = new Poller(refresh, {
  hidden: () => document.hidden,
  setTimeout: (f, ms) => window.setTimeout(f, ms),
  clearTimeout: (h) => window.clearTimeout(h as number),
});
document.addEventListener('visibilitychange', () => poller.visibilityChanged());
void poller.tick();
