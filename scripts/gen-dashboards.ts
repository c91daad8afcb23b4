import { writeFileSync } from 'node:fs';
import { allDashboards, renderDashboard } from '../dashboards/src/index.js';

/** Regenerates dashboards/*.json from dashboards/src (a test fails when they differ). */
for (const [file, d] of Object.entries(allDashboards())) {
  writeFileSync(new URL(`../dashboards/${file}`, import.meta.url), renderDashboard(d));
  process.stdout.write(`dashboards/${file} written\n`);
}
