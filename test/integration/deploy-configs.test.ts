import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { requireTool } from '../helpers/tools.js';
import { tempDir } from '../helpers/temp-dir.js';

const path = (p: string) => fileURLToPath(new URL(`../../deploy/${p}`, import.meta.url));

describe('deployment examples', () => {
  it('the Prometheus config passes promtool check config', () => {
    const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['check', 'config', '--syntax-only', path('prometheus/prometheus.yml')], {
      encoding: 'utf8',
    });
    expect(`${r.stdout}${r.stderr}`).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it.each(['alertmanager/alertmanager.yml', 'alertmanager/alertmanager-ha.yml'])('the Alertmanager config %s passes amtool check-config', (file) => {
    const r = spawnSync(requireTool('amtool', 'apt-get install prometheus-alertmanager'), ['check-config', path(file)], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('the vigil replica config is a valid PostgreSQL alert store config', () => {
    const dir = tempDir('vigil-deploy-');
    for (const f of ['sink-token', 'pg-password', 'db-ca.pem']) writeFileSync(join(dir, f), 'x');
    const text = readFileSync(path('vigil/vigil-replicas.yml'), 'utf8').replaceAll('/etc/vigil/', `${dir}/`);
    const c = parseConfig(text, 'vigil-replicas.yml', { VIGIL_DB_HOST: 'db.example' });
    expect(c.alert_sink?.store.postgres?.url.display).toBe('postgres://vigil@db.example:5432/vigil');
  });
});
