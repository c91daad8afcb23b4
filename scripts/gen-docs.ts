import { readFileSync, writeFileSync } from 'node:fs';
import { CATALOG } from '../src/catalog.js';
import { renderMetricsDoc } from '../src/metrics/docs.js';
import { renderEndpointsTable } from '../src/server/endpoints.js';
import { renderPagingDoc } from './paging/render.js';
import { withEndpointsTable } from './readme-endpoints.js';

/** Regenerates docs/metrics.md from the metric catalog, docs/paging.md from the shipped alerting files, and the README's endpoint table from src/server/endpoints.ts. */
writeFileSync(new URL('../docs/metrics.md', import.meta.url), renderMetricsDoc(CATALOG));
process.stdout.write('docs/metrics.md written\n');
writeFileSync(new URL('../docs/paging.md', import.meta.url), renderPagingDoc());
process.stdout.write('docs/paging.md written\n');
const readme = new URL('../README.md', import.meta.url);
writeFileSync(readme, withEndpointsTable(readFileSync(readme, 'utf8'), renderEndpointsTable()));
process.stdout.write('README.md endpoint table written\n');
