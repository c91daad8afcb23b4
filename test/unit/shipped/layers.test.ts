import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/temp-dir.js';

const root = resolve(import.meta.dirname, '../../..');
const depcruise = join(root, 'node_modules/.bin/depcruise');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Runs dependency-cruiser with the project's rules in `cwd` over `paths`; its violations. */
async function violations(cwd: string, paths: string[]): Promise<Violation[]> {
  const { stdout } = await promisify(execFile)(depcruise, [...paths, '--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'json'], {
    cwd,
    maxBuffer: 64 << 20,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** A scratch tree with the project's tsconfig and the given files. */
function tree(files: Record<string, string>): string {
  const dir = tempDir('vigil-layers-');
  cpSync(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  cpSync(join(root, 'layers.cjs'), join(dir, 'layers.cjs'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** The violations (rule, from, to) of a scratch tree of `files`, cruised over `paths`. */
async function planted(files: Record<string, string>, paths: string[]): Promise<string[][]> {
  return (await violations(tree(files), paths)).map((v) => [v.rule.name, v.from, v.to]);
}

type Layer = [name: string, paths: string[], holds: string, may: string[]];
const { LAYERS } = createRequire(import.meta.url)(join(root, 'layers.cjs')) as { LAYERS: Layer[] };

/** Each file of `files` that is in no layer, or in more than one, with the layers it is in. */
function misplaced(files: readonly string[]): string[] {
  return files.flatMap((f) => {
    const inLayers = LAYERS.filter(([, paths]) => paths.some((p) => new RegExp(p).test(f))).map(([name]) => name);
    return inLayers.length === 1 ? [] : [`${f}: ${inLayers.length ? inLayers.join(', ') : 'no layer'}`];
  });
}

describe('the layers (layers.cjs, checked by dependency-cruiser)', () => {
  it('hold every file of src/, each in exactly one layer, whether it imports anything or not', () => {
    const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `src/${f}`);
    expect(files.length).toBeGreaterThan(100);
    expect(misplaced(files)).toEqual([]);
  });

  it('would name a planted file in no layer, one that imports nothing', () => {
    expect(misplaced(['src/misc/alone.ts', 'src/support/logger.ts'])).toEqual(['src/misc/alone.ts: no layer']);
  });

  it('name only layers they declare, and no layer may import one above it', () => {
    const names = LAYERS.map(([name]) => name);
    for (const [i, [name, , , may]] of LAYERS.entries()) {
      for (const m of may) expect(names.indexOf(m), `${name} may import ${m}`).toBeGreaterThanOrEqual(0);
      for (const m of may) expect(names.indexOf(m), `${name} may import ${m}, a layer above it`).toBeLessThan(i);
    }
  });

  it('src/ and simulators/ have no import circle and no import a layer may not make; dashboards/src and deploy/kubernetes/src none of their generators', async () => {
    const found = await violations(root, ['src', 'simulators', 'dashboards/src', 'deploy/kubernetes/src']);
    expect(found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  });

  it('a planted import from the dashboards to their generator is caught', async () => {
    const found = await planted(
      {
        'dashboards/src/board.ts': "import { fit } from '../../scripts/mixin/fit.js';\nexport const board = fit;\n",
        'scripts/mixin/fit.ts': 'export const fit = 1;\n',
      },
      ['dashboards/src'],
    );
    expect(found).toEqual([['generated-sources-not-from-tooling', 'dashboards/src/board.ts', 'scripts/mixin/fit.ts']]);
  });

  it('a planted import from a lower layer to a higher one is caught', async () => {
    const found = await planted(
      {
        'src/support/low.ts': "import { high } from '../server/high.js';\nexport const low = high;\n",
        'src/server/high.ts': 'export const high = 1;\n',
      },
      ['src'],
    );
    expect(found).toEqual([['layer-support', 'src/support/low.ts', 'src/server/high.ts']]);
  });

  it('a planted sideways import, from a layer to one below it that it may not import, is caught', async () => {
    const found = await planted(
      {
        'src/engine/runner.ts': "import { store } from '../sink/store.js';\nexport const runner = store;\n",
        'src/sink/store.ts': 'export const store = 1;\n',
        'src/metrics/render.ts': "import { kinds } from '../config/schema.js';\nexport const render = kinds;\n",
        'src/config/schema.ts': 'export const kinds = 1;\n',
      },
      ['src'],
    );
    expect(found.sort()).toEqual([
      ['layer-engine', 'src/engine/runner.ts', 'src/sink/store.ts'],
      ['layer-metrics', 'src/metrics/render.ts', 'src/config/schema.ts'],
    ]);
  });

  it('are whole folders (or files of src/ itself): no folder is split between layers', () => {
    const paths = LAYERS.flatMap(([, p]) => p);
    expect(paths.filter((p) => !/^\^src\/[a-z-]+\/$/.test(p) && !/^\^src\/(\([a-z|-]+\)|[a-z-]+)\\\.ts\$$/.test(p))).toEqual([]);
  });

  it('a planted import from a folder to the folder above it, where one folder once held both, is caught', async () => {
    const found = await planted(
      {
        'src/config-fields/late-field.ts': "import { configSchema } from '../config/schema.js';\nexport const late = configSchema;\n",
        'src/config/schema.ts': 'export const configSchema = 1;\n',
      },
      ['src'],
    );
    expect(found).toEqual([['layer-config-fields', 'src/config-fields/late-field.ts', 'src/config/schema.ts']]);
  });

  it('a planted import of an upstream folder from a generic piece of the collectors is caught', async () => {
    const found = await planted(
      {
        'src/collectors/run-plan.ts': "import { secretsCall } from './secrets/call.js';\nexport const run = secretsCall;\n",
        'src/collectors/secrets/call.ts': 'export const secretsCall = 1;\n',
      },
      ['src'],
    );
    expect(found).toEqual([['generic-names-no-upstream', 'src/collectors/run-plan.ts', 'src/collectors/secrets/call.ts']]);
  });

  it('a planted circle, of type imports only, is caught', async () => {
    const found = await planted(
      {
        'src/jobs/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
        'src/jobs/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
      },
      ['src'],
    );
    expect(found.length).toBeGreaterThan(0);
    expect(new Set(found.map(([rule]) => rule))).toEqual(new Set(['no-circular']));
  });

  it('an import of a file outside every layer names both files', async () => {
    const found = await planted(
      { 'src/support/user.ts': "import { x } from '../misc/x.js';\nexport const y = x;\n", 'src/misc/x.ts': 'export const x = 1;\n' },
      ['src'],
    );
    expect(found).toEqual([['unlayered-file', 'src/support/user.ts', 'src/misc/x.ts']]);
  });
});
