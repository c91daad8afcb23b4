import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requireTool } from '../helpers/tools.js';

const path = (p: string) => fileURLToPath(new URL(`../../deploy/${p}`, import.meta.url));

describe('deployment examples', () => {
  it('the Prometheus config passes promtool check config', () => {
    const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['check', 'config', '--syntax-only', path('prometheus/prometheus.yml')], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('the Alertmanager config passes amtool check-config', () => {
    const r = spawnSync(requireTool('amtool', 'apt-get install prometheus-alertmanager'), ['check-config', path('alertmanager/alertmanager.yml')], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });
});
