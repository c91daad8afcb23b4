import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { uncommentTelemetry } from '../../simulators/alerting/telemetry-jobs.js';
import { requireTool } from '../helpers/tools.js';
import { tempDir } from '../helpers/temp-dir.js';

const shipped = fileURLToPath(new URL('../../deploy/prometheus/prometheus.yml', import.meta.url));
interface Job {
  job_name: string;
  metrics_path?: string;
  params?: Record<string, string[]>;
  authorization?: { credentials?: string; credentials_file?: string };
  static_configs: Array<{ targets: string[]; labels?: Record<string, string> }>;
  metric_relabel_configs?: Array<Record<string, unknown>>;
}

const checkConfig = (file: string) => {
  const r = spawnSync(requireTool('promtool', 'apt-get install prometheus'), ['check', 'config', file], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
};

describe('the upstreams’ telemetry scrape jobs in deploy/prometheus/prometheus.yml', () => {
  const text = readFileSync(shipped, 'utf8');
  const enabled = uncommentTelemetry(text);
  const jobs = (parse(enabled) as { scrape_configs: Job[] }).scrape_configs;
  const job = (name: string) => jobs.find((j) => j.job_name === name)!;

  it('ships them commented out: the file as shipped scrapes vigil alone', () => {
    expect((parse(text) as { scrape_configs: Job[] }).scrape_configs.map((j) => j.job_name)).toEqual(['vigil']);
  });

  it('as shipped, passes promtool check config (not only its syntax)', () => {
    const r = checkConfig(shipped);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('uncommented, passes promtool check config with its token and CA files in place', () => {
    const dir = tempDir('vigil-telemetry-jobs-');
    const rewritten = enabled.replaceAll('/etc/prometheus/', `${dir}/`);
    for (const m of rewritten.matchAll(/(?:credentials_file|ca_file): (\S+)/g)) {
      mkdirSync(dirname(m[1]!), { recursive: true });
      writeFileSync(m[1]!, 'x\n');
    }
    const rules = join(dir, 'vigil');
    mkdirSync(rules, { recursive: true });
    const file = join(dir, 'prometheus.yml');
    writeFileSync(file, rewritten);
    const r = checkConfig(file);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('asks each vendor’s documented path in Prometheus format, one target per node', () => {
    expect(job('secrets-telemetry')).toMatchObject({ metrics_path: '/v1/sys/metrics', params: { format: ['prometheus'] } });
    expect(job('scheduler-telemetry')).toMatchObject({ metrics_path: '/v1/metrics', params: { format: ['prometheus'] } });
    expect(job('teams-telemetry')).toMatchObject({ metrics_path: '/metrics', params: { format: ['prometheus'] } });
    expect(job('teams-hosted-telemetry').metrics_path).toMatch(/^\/telemetry\/hcpt\/org-[^/]+\/metrics$/);
    expect(job('secrets-telemetry').static_configs[0]!.targets.length).toBeGreaterThan(1);
  });

  it('reads every token from a file, never inline', () => {
    for (const j of jobs) expect(j.authorization?.credentials).toBeUndefined();
    expect(job('secrets-telemetry').authorization?.credentials_file).toBeTruthy();
    expect(job('teams-hosted-telemetry').authorization?.credentials_file).toBeTruthy();
  });

  it('labels each job with the name the rules join on, and keeps Vault’s own cluster label apart', () => {
    for (const name of ['secrets-telemetry', 'teams-telemetry', 'teams-hosted-telemetry']) {
      for (const sc of job(name).static_configs) expect(sc.labels?.target).toBeTruthy();
    }
    for (const sc of job('scheduler-telemetry').static_configs) expect(sc.labels?.region).toBeTruthy();
    expect(job('secrets-telemetry').metric_relabel_configs).toEqual([
      { source_labels: ['cluster'], target_label: 'exported_cluster' },
      { regex: 'cluster', action: 'labeldrop' },
    ]);
  });
});
