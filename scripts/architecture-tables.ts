import { createRequire } from 'node:module';
import { COLLECTORS } from '../src/collectors/index.js';
import type { Collector } from '../src/collectors/collector.js';
import { feedsOf } from '../src/collectors/endpoint.js';
import { stepWhen } from '../src/collectors/plan.js';

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
/** What the tables show of a collector. */
type Shown = Pick<Collector, 'kind' | 'endpoints' | 'plans'>;
const plansOf = (c: Shown) => c.plans.flatMap((plan) => plan.steps.map((step) => ({ plan, step })));

/** Every endpoint of every collector, from its declaration (`src/collectors/<upstream>/<name>.ts`) and the plans that call it. */
export function renderEndpointDeclarationsTable(collectors: readonly Shown[] = COLLECTORS): string {
  const rows = collectors.flatMap((c) =>
    c.endpoints.map((e) => {
      const when = plansOf(c).flatMap(({ plan, step }) => (step.kind === 'call' && step.endpoint === e ? [stepWhen(plan, step)] : []));
      const sw = e.switch ? `\`${e.switch.key}\` (default ${e.switch.default}): ${cell(e.switch.help)}` : '—';
      const na = e.notApplicable ? cell(e.notApplicable.means) : '—';
      const call = `${e.method} \`${e.path}\`${e.paged ? `, paged by ${cell(e.paged)}` : ''}`;
      const bounds = e.bounds?.length ? e.bounds.map((b) => `${cell(b.items)}: \`${b.key}\` (\`${b.dropped}\`)`).join('; ') : '—';
      return `| \`${c.kind}\` | \`${e.id}\` | ${call} | ${e.needs ? cell(e.needs) : '—'} | ${cell(when.join('; '))} | ${sw} | ${e.up ? `\`${e.up.name}\`` : '—'} | ${na} | ${bounds} | ${feedsOf(e).length} |`;
    }),
  );
  return [
    '| targets (config) | endpoint | call | needs | when | switch | `_up` | not applicable when | series kept of (config key, dropped count) | families fed |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Each endpoint is declared in the file its id names (\`src/collectors/<upstream>/<name>.ts\`); "when" comes from the plans of ${collectors.map((c) => `\`src/collectors/${folder(c.kind)}/\``).join(', ')}.`,
  ].join('\n');
}

/** Every job's plan: what a run does, step by step, in the order its failures rank (the last failed step is the one the target shows). */
export function renderPlansTable(collectors: readonly Shown[] = COLLECTORS): string {
  const rows = collectors.flatMap((c) =>
    c.plans.map((plan) => {
      const steps = plan.steps.map((s) =>
        s.kind === 'call' ? `\`${s.endpoint.id}\`${s.each ? ' (each)' : ''}${s.within ? ' (within)' : ''}` : `${s.name}${s.families.length ? '' : ' (value)'}`,
      );
      return `| \`${c.kind}\` | \`${plan.job}\` | \`${plan.schedule.key}\`${plan.on ? `, ${cell(plan.on.says)}` : ''} | ${steps.join(' → ')} |`;
    }),
  );
  return ['| targets (config) | job (`collector` label) | schedule | steps, in the order their failures rank |', '|---|---|---|---|', ...rows].join('\n');
}
