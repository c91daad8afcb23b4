import { execSync, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requireTool } from '../helpers/tools.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * docs/runbooks.md tells users hosting the runbooks elsewhere how to rewrite every runbook_url: the
 * recipe, run as written on a scratch copy of the repository, must leave no old URL in the rules,
 * their tests or the Kubernetes manifests, and the rules' tests must still pass.
 */
const repo = fileURLToPath(new URL('../..', import.meta.url));
const scratch = tempDir('vigil-runbook-recipe-');

const OLD = 'https://github.com/vigil-monitoring/vigil/blob/main/docs/runbooks.md';

describe('the runbook URL rewrite recipe', () => {
  it('rewrites every runbook_url users deploy, and the rules still pass their tests', () => {
    for (const p of ['alerts', 'dashboards', 'scripts', 'deploy', 'src', 'simulators', 'package.json', 'tsconfig.json'])
      cpSync(join(repo, p), join(scratch, p), { recursive: true });
    symlinkSync(join(repo, 'node_modules'), join(scratch, 'node_modules'));
    const doc = readFileSync(join(repo, 'docs/runbooks.md'), 'utf8');
    const recipe = /`(sed -i [^`]+)`,\s*then `([^`]+)`/.exec(doc);
    expect(recipe, 'the recipe in docs/runbooks.md').not.toBeNull();
    execSync(`${recipe![1]} && ${recipe![2]}`, { cwd: scratch, stdio: 'pipe', timeout: 120_000 });
    const grep = spawnSync('grep', ['-rl', OLD, 'alerts', 'deploy/kubernetes', 'deploy/kube-prometheus-stack'], { cwd: scratch, encoding: 'utf8' });
    expect(grep.stdout.trim()).toBe('');
    const rules = readFileSync(join(scratch, 'deploy/kubernetes/prometheusrule.yaml'), 'utf8');
    expect(rules).toContain('runbook_url: https://wiki.example/vigil-runbooks#');
    // The shipped rules' tests and the optional telemetry rules' (alerts/tests/telemetry/).
    const tests = ['tests', 'tests/telemetry'].flatMap((d) =>
      readdirSync(join(scratch, 'alerts', d))
        .filter((f) => f.endsWith('.test.yml'))
        .map((f) => `${d}/${f}`),
    );
    const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['test', 'rules', ...tests], {
      cwd: join(scratch, 'alerts'),
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(`${r.stdout}${r.stderr}`).not.toContain('FAILED');
    expect(r.status).toBe(0);
  }, 180_000);
});
