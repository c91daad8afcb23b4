import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { renderDashboard } from '../dashboards/src/index.js';
import { DEFAULT_MIXIN, loadMixinConfig } from './mixin/config.js';
import { mixinDashboards } from './mixin/dashboards.js';
import { generateJsonnetMixin, JSONNET_DIR } from './mixin/jsonnet.js';
import { generateRules } from './mixin/rules.js';

/**
 * Writes alerts/*.rules.yml (from alerts/src/) and dashboards/*.json (from dashboards/src/) for a
 * mixin config: `npm run mixin` regenerates the committed files (the default config; a test fails
 * when they are stale), `npm run mixin -- --config=my-labels.yml --out=DIR` writes yours under DIR.
 * Without --config it also writes the jsonnet mixin package vigil-mixin/, which takes its config in jsonnet.
 */
const { values } = parseArgs({ options: { config: { type: 'string' }, out: { type: 'string' } }, strict: true });
const config = values.config ? loadMixinConfig(values.config) : DEFAULT_MIXIN;
const out = values.out ? resolve(values.out) : fileURLToPath(new URL('..', import.meta.url));

mkdirSync(join(out, 'alerts'), { recursive: true });
for (const [file, text] of Object.entries(generateRules(config))) {
  writeFileSync(join(out, 'alerts', file), text);
  process.stdout.write(`${join(values.out ?? '', 'alerts', file)} written\n`);
}
mkdirSync(join(out, 'dashboards'), { recursive: true });
for (const [file, d] of Object.entries(mixinDashboards(config))) {
  writeFileSync(join(out, 'dashboards', file), renderDashboard(d));
  process.stdout.write(`${join(values.out ?? '', 'dashboards', file)} written\n`);
}
if (!values.config) {
  mkdirSync(join(out, JSONNET_DIR), { recursive: true });
  for (const [file, text] of Object.entries(generateJsonnetMixin())) {
    writeFileSync(join(out, JSONNET_DIR, file), text);
    process.stdout.write(`${join(values.out ?? '', JSONNET_DIR, file)} written\n`);
  }
}
