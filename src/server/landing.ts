import type { TargetView } from '../daemon.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The small page at `/`: every job, its last collection and where to look next. */
export function landingPage(version: string, targets: readonly TargetView[], ready: boolean): string {
  const rows = targets
    .map((t) => {
      const state = t.up === null ? 'pending' : t.up ? 'up' : 'down';
      const err = t.lastError ? `${t.lastError.reason}: ${t.lastError.message}` : '';
      return `<tr class="${state}"><td>${esc(t.collector)}</td><td>${esc(t.target)}</td><td>${state}</td><td>${esc(t.schedule)}</td><td>${t.lastRun ?? '—'}</td><td>${t.lastSuccess ?? '—'}</td><td>${t.lastDurationSeconds === null ? '—' : t.lastDurationSeconds.toFixed(3) + ' s'}</td><td>${esc(err)}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>vigil</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}tr.down td:nth-child(3){color:#b00;font-weight:bold}tr.up td:nth-child(3){color:#070}</style>
</head><body>
<h1>vigil ${esc(version)}</h1>
<p>${ready ? 'Ready: every target has been collected at least once.' : 'Not ready yet: some targets have not been collected.'}</p>
<p><a href="metrics">/metrics</a> · <a href="healthz">/healthz</a> · <a href="readyz">/readyz</a> · <a href="api/v1/targets">/api/v1/targets</a></p>
<table><thead><tr><th>collector</th><th>target</th><th>state</th><th>schedule</th><th>last run</th><th>last success</th><th>duration</th><th>last error</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}
