import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replicatedTestFile, withReplica, firstSample, type ReplicaMode } from '../helpers/replicated-rule-tests.js';
import { testFiles } from '../helpers/rules.js';
import { requireTool } from '../helpers/tools.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Every shipped promtool test, replayed with two vigils exposing the same targets (HA replicas, or
 * one Prometheus scraping two vigil jobs), and again with the second vigil gone after its first
 * scrape. Each rule must evaluate without error, page once where it aggregates the vigils away,
 * and never page because one vigil stopped.
 */
const dir = tempDir('vigil-rule-replicas-');

function promtoolTest(file: string, mode: ReplicaMode): { status: number | null; output: string } {
  const path = join(dir, `${mode}-${file}`);
  writeFileSync(path, replicatedTestFile(file, mode));
  const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['test', 'rules', path], { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('the replay of a test for two vigils', () => {
  it('adds job and instance to a series, with or without labels', () => {
    expect(withReplica('up', 'a:1')).toBe('up{job="vigil",instance="a:1"}');
    expect(withReplica('x{target="t"}', 'a:1')).toBe('x{job="vigil",instance="a:1",target="t"}');
    expect(withReplica('x{}', 'a:1')).toBe('x{job="vigil",instance="a:1"}');
  });
  it('reads the first sample of a values string', () => {
    expect(['1x4', '0+1x40', '_x5', '_ 1x20', '864000x59 5184000x60', '0.2x90'].map(firstSample)).toEqual(['1', '0', '_', '_', '864000', '0.2']);
  });
});

describe.each(testFiles())('%s', (file) => {
  it.each(['both', 'second-stops'] as const)('passes with two vigils (%s)', (mode) => {
    const r = promtoolTest(file, mode);
    expect(r.output).not.toContain('FAILED');
    expect(r.status).toBe(0);
  });
});
