import { writeFileSync } from 'node:fs';
import { CATALOG } from '../src/metrics/catalog.js';
import { renderMetricsDoc } from '../src/metrics/docs.js';
import { renderPagingDoc } from './paging/render.js';

/** Regenerates docs/metrics.md from the metric catalog and docs/paging.md from the shipped alerting files. */
writeFileSync(new URL('../docs/metrics.md', import.meta.url), renderMetricsDoc(CATALOG));
process.stdout.write('docs/metrics.md written\n');
writeFileSync(new URL('../docs/paging.md', import.meta.url), renderPagingDoc());
process.stdout.write('docs/paging.md written\n');
