import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
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

describe('the layers (layers.cjs, checked by dependency-cruiser)', () => {
  it('src/ and simulators/ have no import circle and no import from a layer above', async () => {
    const found = await violations(root, ['src', 'simulators']);
    expect(found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  });

  it('a planted import from a lower layer to a higher one is caught', async () => {
    const dir = tree({
      'src/support/low.ts': "import { high } from '../server/high.js';\nexport const low = high;\n",
      'src/server/high.ts': 'export const high = 1;\n',
    });
    const found = await violations(dir, ['src']);
    expect(found.map((v) => [v.rule.name, v.from, v.to])).toEqual([['layer-support', 'src/support/low.ts', 'src/server/high.ts']]);
  });

  it('a planted circle, of type imports only, is caught', async () => {
    const dir = tree({
      'src/jobs/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'src/jobs/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    const found = await violations(dir, ['src']);
    expect(found.length).toBeGreaterThan(0);
    expect(new Set(found.map((v) => v.rule.name))).toEqual(new Set(['no-circular']));
  });

  it('a file outside every layer is caught', async () => {
    const dir = tree({ 'src/misc/stray.ts': "import { x } from './x.js';\nexport const y = x;\n", 'src/misc/x.ts': 'export const x = 1;\n' });
    const found = await violations(dir, ['src']);
    expect(found.map((v) => [v.rule.name, v.from])).toEqual([['unlayered-file', 'src/misc/stray.ts']]);
  });
});
