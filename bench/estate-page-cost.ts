import { buildEstate } from '../src/server/estate.js';
import { renderEstate } from '../src/server/ui/estate-view.js';

export const NOW = Date.parse('2026-11-23T10:00:00Z');

/**
 * Builds and renders the estate page (buildEstate + renderEstate, what `/` and `/api/v1/estate` do
 * per request) from each snapshot `rounds` times after a warm-up, and prints the CPU each page took
 * and its ratio to the first case's, all in one run.
 */
export function printPageCost(cases: ReadonlyArray<{ label: string; text: string }>, rounds: number, column: string): void {
  const rows = cases.map(({ label, text }) => {
    let html = '';
    renderEstate(buildEstate(text, [], NOW), { now: NOW }); // warm up
    const start = process.cpuUsage();
    for (let i = 0; i < rounds; i++) html = renderEstate(buildEstate(text, [], NOW), { now: NOW });
    const cpu = process.cpuUsage(start);
    return {
      case: label,
      'snapshot kB': Math.round(text.length / 1024),
      'page kB': Math.round(html.length / 1024),
      cpu: (cpu.user + cpu.system) / 1000 / rounds,
    };
  });
  const base = rows[0]!.cpu;
  console.table(rows.map(({ cpu, ...r }) => ({ ...r, 'CPU ms / page': cpu.toFixed(1), [column]: (cpu / base).toFixed(2) })));
}
