import http from 'node:http';

/**
 * A stand-in pager: the webhook Alertmanager's `pager` (or `heartbeat`) receiver posts to in the
 * demo, keeping the last notifications. `GET /` shows them as a page, `GET /pages` as JSON, so a
 * demo or a test can see what paged. What senders put in labels is escaped wherever it is shown.
 */
export interface Page {
  at: string;
  status: string;
  groupKey: string;
  alerts: Array<{ status: string; labels: Record<string, string>; annotations: Record<string, string> }>;
}

export interface StandInPager {
  readonly url: string;
  pages(): readonly Page[];
  close(): Promise<void>;
}

const KEEP = 200;
const MAX_BODY = 1 << 20;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** One line of a page for a terminal: control characters never reach it. */
export const pageLine = (p: Page) =>
  p.alerts
    .map(
      (a) =>
        `${a.status === 'firing' ? 'PAGE' : 'resolved'} ${a.labels.alertname ?? '?'} ${Object.entries(a.labels)
          .filter(([k]) => !['alertname', 'severity'].includes(k))
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}`,
    )
    // eslint-disable-next-line no-control-regex -- a sender's control characters are replaced before printing
    .map((l) => l.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?'));

function render(title: string, pages: readonly Page[]): string {
  const rows = [...pages]
    .reverse()
    .flatMap((p) =>
      p.alerts.map(
        (a) =>
          `<tr><td>${escapeHtml(p.at)}</td><td>${escapeHtml(a.status)}</td><td>${escapeHtml(a.labels.alertname ?? '')}</td><td>${escapeHtml(a.labels.severity ?? '')}</td><td>${escapeHtml(
            Object.entries(a.labels)
              .filter(([k]) => !['alertname', 'severity'].includes(k))
              .map(([k, v]) => `${k}=${v}`)
              .join(' '),
          )}</td><td>${escapeHtml(a.annotations.summary ?? '')}</td></tr>`,
      ),
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5"><title>${escapeHtml(title)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border-bottom:1px solid #ccc;padding:.3em .6em;text-align:left}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>What Alertmanager sent this receiver, newest first (refreshes every 5 s).</p>
<table><thead><tr><th>received</th><th>status</th><th>alert</th><th>severity</th><th>labels</th><th>summary</th></tr></thead><tbody>
${rows || '<tr><td colspan="6">nothing yet</td></tr>'}
</tbody></table></body></html>`;
}

export async function startStandInPager(opts: { title: string; onPage?: (p: Page) => void; port?: number }): Promise<StandInPager> {
  const pages: Page[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      if (req.url === '/pages') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(pages));
        return;
      }
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" })
        .end(render(opts.title, pages));
      return;
    }
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      try {
        const n = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<Page, 'at'>;
        const page: Page = {
          at: new Date().toISOString(),
          status: String(n.status),
          groupKey: String(n.groupKey),
          alerts: (n.alerts ?? []).map((a) => ({ status: String(a.status), labels: a.labels ?? {}, annotations: a.annotations ?? {} })),
        };
        pages.push(page);
        if (pages.length > KEEP) pages.shift();
        opts.onPage?.(page);
        res.writeHead(200).end();
      } catch {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('not an Alertmanager notification\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    pages: () => pages,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
