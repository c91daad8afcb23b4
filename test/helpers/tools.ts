import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Path of an external tool a test needs. A missing tool fails the test with the exact install
 * command: a test that cannot run must never pass by skipping.
 */
export function requireTool(binary: string, install: string): string {
  for (const dir of ['/usr/bin', '/usr/local/bin', '/bin', '/usr/sbin']) {
    const p = `${dir}/${binary}`;
    if (existsSync(p)) return p;
  }
  throw new Error(`${binary} not found: ${install}`);
}

/** Runs `promtool check metrics` on exposition text; returns its exit code and what it printed. */
export function promtoolCheckMetrics(text: string): { status: number | null; output: string } {
  const promtool = requireTool('promtool', 'apt-get install prometheus');
  const r = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}
