import type { ExpositionFormat } from '../metrics/snapshot-store.js';

/**
 * The exposition format a scraper asked for in its Accept header: OpenMetrics 1.0 when it prefers
 * `application/openmetrics-text` (version 1.0.0, or none given) to the classic `text/plain`, the
 * classic format otherwise (no header, `*\/*`, a browser, an OpenMetrics version vigil does not write).
 * Prometheus 2.x sends `application/openmetrics-text;version=1.0.0,...;q=0.75,text/plain;version=0.0.4;q=0.5,*\/*;q=0.1`.
 */
export function negotiateFormat(accept: string | undefined): ExpositionFormat {
  if (!accept || !accept.includes('openmetrics')) return 'text';
  let openmetrics = 0;
  let text = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const param = (name: string) => params.find((p) => p.startsWith(`${name}=`))?.slice(name.length + 1);
    const q = Number(param('q') ?? '1');
    if (!Number.isFinite(q)) continue;
    if (type === 'application/openmetrics-text') {
      const version = param('version');
      if (version === undefined || version === '1.0.0') openmetrics = Math.max(openmetrics, q);
    } else if (type === 'text/plain' || type === 'text/*' || type === '*/*') {
      text = Math.max(text, q);
    }
  }
  return openmetrics > 0 && openmetrics > text ? 'openmetrics' : 'text';
}
