import { writeFileSync } from 'node:fs';
import { CATALOG } from '../src/metrics/catalog.js';
import { renderMetricsDoc } from '../src/metrics/docs.js';

/** Regenerates docs/metrics.md from the metric catalog. */
writeFileSync(new URL('../docs/metrics.md', import.meta.url), renderMetricsDoc(CATALOG));
process.stdout.write('docs/metrics.md written\n');
