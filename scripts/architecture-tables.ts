import { createRequire } from 'node:module';
import { COLLECTORS } from '../src/collectors/index.js';
import { feedsOf } from '../src/collectors/endpoint.js';

type Layer = [name: string, paths: string[], holds: string, may: string[]];
const { LAYERS, SIMULATOR_LAYERS } = createRequire(import.meta.url)('../layers.cjs') as { LAYERS: Layer[]; SIMULATOR_LAYERS: Layer[] };

/** `^src/support/` → `src/support/`; `^src/(cli|main)\.ts$` → `src/{cli,main}.ts`; `^src/config/(?!(a|b)\.ts$)` → `src/config/ but {a,b}.ts`. */
const shown = (re: string) =>
  re
    .replace(/\(\?!(.*)\)$/, ' but $1')
    .replace(/^\^/, '')
    .replace(/\$$/, '')
    .replace(/\\\./g, '.')
    .replace(/\(([^)]+)\)/g, (_, alts: string) => `{${alts.split('|').join(',')}}`)
    .replace('[^/]+', '*');

function table(layers: Layer[]): string {
  const rows = [...layers]
    .reverse()
    .map(
      ([name, paths, holds, may], i) =>
        `| ${layers.length - i} | ${name} | ${paths.map((p) => `\`${shown(p)}\``).join(' ')} | ${holds} | ${may.length ? may.join(', ') : '—'} |`,
    );
  return ['| # | layer | files | what it holds | may import |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The layers of src/ and simulators/, highest first, as layers.cjs declares them. */
export function renderLayersTable(): string {
  return `${table(LAYERS)}\n\n${table(SIMULATOR_LAYERS)}`;
}

const folder = (kind: string) => (kind === 'agents' ? 'agent' : kind);
const cell = (text: string) => text.replace(/\|/g, '\\|');

/** Every endpoint of every collector, from its declaration (`src/collectors/<upstream>/endpoints.ts`). */
export function renderEndpointDeclarationsTable(): string {
  const rows = COLLECTORS.flatMap((c) =>
    c.endpoints.map((e) => {
      const sw = e.switch ? `\`${e.switch.key}\` (default ${e.switch.default}): ${cell(e.switch.help)}` : '—';
      const na = e.notApplicable ? cell(e.notApplicable.means) : '—';
      return `| \`${c.kind}\` | \`${e.id}\` | ${e.method} \`${e.path}\` | ${e.needs ? cell(e.needs) : '—'} | ${cell(e.when)} | ${sw} | ${e.up ? `\`${e.up.name}\`` : '—'} | ${na} | ${feedsOf(e).length} |`;
    }),
  );
  return [
    '| targets (config) | endpoint | call | needs | when | switch | `_up` | not applicable when | families fed |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Declared in ${COLLECTORS.map((c) => `\`src/collectors/${folder(c.kind)}/endpoints.ts\``).join(', ')}.`,
  ].join('\n');
}
