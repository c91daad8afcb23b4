import { readFileSync, writeFileSync } from 'node:fs';
import { CATALOG } from '../src/catalog.js';
import { renderMetricsDoc } from '../src/metrics/docs.js';
import { renderHttpRoutesTable } from '../src/server/http-routes.js';
import { renderEndpointDeclarationsTable, renderLayersTable, renderPlansTable } from './architecture-tables.js';
import { renderCorpusTable } from './corpus-table.js';
import { withSection } from './doc-sections.js';
import { renderPerformance } from './readme-performance.js';
import { renderPagingDoc } from './paging/render.js';

/**
 * Regenerates docs/metrics.md from the metric catalog, docs/paging.md from the shipped alerting
 * files, the README's table of vigil's HTTP routes from src/server/http-routes.ts, and docs/architecture.md's
 * tables of layers (layers.cjs), endpoints and plans (the collectors' declarations), and the table of
 * the corpus of real answers (test/fixtures/real/README.md, from the answers' files).
 */
function write(file: string, text: string): void {
  writeFileSync(new URL(`../${file}`, import.meta.url), text);
  process.stdout.write(`${file} written\n`);
}
function update(file: string, sections: Record<string, string>): void {
  let text = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
  for (const [name, content] of Object.entries(sections)) text = withSection(text, name, content, file);
  write(file, text);
}

write('docs/metrics.md', renderMetricsDoc(CATALOG));
write('docs/paging.md', renderPagingDoc());
update('README.md', { 'http-routes': renderHttpRoutesTable(), performance: renderPerformance() });
update('test/fixtures/real/README.md', { corpus: renderCorpusTable() });
update('docs/architecture.md', { layers: renderLayersTable(), endpoints: renderEndpointDeclarationsTable(), plans: renderPlansTable() });
