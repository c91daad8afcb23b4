import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { VigilDashboard } from '../dashboards/src/common.js';
import { renderDashboard } from '../dashboards/src/index.js';
import { DEFAULT_MIXIN, loadMixinConfig } from './mixin/config.js';
import { mixinDashboards, mixinTelemetryDashboards } from './mixin/dashboards.js';
import { generateJsonnetMixin, JSONNET_DIR } from './mixin/jsonnet.js';
import { generateAllRules } from './mixin/rules.js';

/**
 * Writes alerts/*.rules.yml (from alerts/src/) and dashboards/*.json (from dashboards/src/) for a
 * mixin config: `npm run mixin` regenerates the committed files (the default config; a test fails
 * when they are stale), `npm run mixin -- --config=my-labels.yml --out=DIR` writes yours under DIR.
 * Without --config it also writes the jsonnet mixin package vigil-mixin/, which takes its config in jsonnet.
 * The optional rules and dashboard on the upstreams' telemetry go to alerts/telemetry/ and dashboards/telemetry/: always in the repository
 * (for users of the plain files), and under --out with `telemetry: true` or --telemetry.
 */
const { values } = parseArgs({ options: { config: { type: 'string' }, out: { type: 'string' }, telemetry: { type: 'boolean' } }, strict: true });
const loaded = values.config ? loadMixinConfig(values.config) : DEFAULT_MIXIN;
const config = values.telemetry ? { ...loaded, telemetry: true } : loaded;
const out = values.out ? resolve(values.out) : fileURLToPath(new URL('..', import.meta.url));

const rules = generateAllRules(config);
const write = (dir: string, files: Record<string, string>) => {
  mkdirSync(join(out, dir), { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    writeFileSync(join(out, dir, file), text);
    process.stdout.write(`${join(values.out ?? '', dir, file)} written\n`);
  }
};
write('alerts', rules.shipped);
if (config.telemetry || !values.out) write(join('alerts', 'telemetry'), rules.telemetry);
const render = (boards: Record<string, VigilDashboard>) => Object.fromEntries(Object.entries(boards).map(([f, d]) => [f, renderDashboard(d)]));
write('dashboards', render(mixinDashboards(config)));
if (config.telemetry || !values.out) write(join('dashboards', 'telemetry'), render(mixinTelemetryDashboards(config)));
if (!values.config) write(JSONNET_DIR, generateJsonnetMixin());
