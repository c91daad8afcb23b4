import { createRequire } from 'node:module';
import { AREAS } from '../src/collectors/index.js';

type Layer = [name: string, paths: string[], holds: string];
const { LAYERS, SIMULATOR_LAYERS } = createRequire(import.meta.url)('../layers.cjs') as { LAYERS: Layer[]; SIMULATOR_LAYERS: Layer[] };

/** `^src/support/` → `src/support/`; `^src/(cli|main)\.ts$` → `src/{cli,main}.ts`. */
const shown = (re: string) =>
  re
    .replace(/^\^/, '')
    .replace(/\$$/, '')
    .replace(/\\\./g, '.')
    .replace(/\(([^)]+)\)/g, (_, alts: string) => `{${alts.split('|').join(',')}}`)
    .replace('[^/]+', '*');

function table(layers: Layer[]): string {
  const rows = [...layers]
    .reverse()
    .map(([name, paths, holds], i) => `| ${layers.length - i} | ${name} | ${paths.map((p) => `\`${shown(p)}\``).join(' ')} | ${holds} |`);
  return ['| # | layer | files | what it holds |', '|---|---|---|---|', ...rows].join('\n');
}

/** The layers of src/ and simulators/, highest first, as layers.cjs declares them. */
export function renderLayersTable(): string {
  return `${table(LAYERS)}\n\n${table(SIMULATOR_LAYERS)}`;
}

/** Each area's endpoints and how many families it exports, from src/areas/. */
export function renderAreasTable(): string {
  const rows = AREAS.map(
    (a) =>
      `| \`${a.kind}\` | \`src/collectors/${a.kind === 'agents' ? 'agent' : a.kind}/collector.ts\` | ${a.endpoints.map((e) => `${e.method} \`${e.path}\``).join('<br>')} | ${a.families.length} |`,
  );
  return ['| targets (config) | registry | endpoints polled | families |', '|---|---|---|---|', ...rows].join('\n');
}
