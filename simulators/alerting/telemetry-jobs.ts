import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from './shipped-files.js';

/**
 * The upstream telemetry jobs of deploy/prometheus/prometheus.yml: the commented block between its
 * BEGIN and END markers, read as an operator who uncomments it would get it. The Kubernetes
 * component (deploy/kubernetes/src/telemetry.ts) is generated from it; the demo and the live test
 * point it at the simulators.
 */
const BEGIN = /^\s*# --- BEGIN upstream telemetry/;
const END = /^\s*# --- END upstream telemetry/;

/** prometheus.yml with its marked block uncommented: `# ` goes, `## ` notes stay comments. */
export function uncommentTelemetry(text: string): string {
  let inside = false;
  return text
    .split('\n')
    .map((line) => {
      if (BEGIN.test(line)) inside = true;
      else if (END.test(line)) inside = false;
      else if (inside) return line.replace(/^(\s*)# ?(?!#)/, '$1');
      return line;
    })
    .join('\n');
}

export interface RelabelConfig {
  source_labels?: string[];
  target_label?: string;
  regex?: string;
  action?: string;
}

export interface TelemetryJob {
  job_name: string;
  metrics_path?: string;
  params?: Record<string, string[]>;
  scheme?: string;
  tls_config?: { ca_file?: string };
  authorization?: { credentials_file?: string };
  static_configs: Array<{ targets: string[]; labels?: Record<string, string> }>;
  metric_relabel_configs?: RelabelConfig[];
}

/** The jobs of the marked block (every job but vigil's own). */
export function telemetryJobs(text: string = readFileSync(join(repoRoot(), 'deploy/prometheus/prometheus.yml'), 'utf8')): TelemetryJob[] {
  const jobs = (parse(uncommentTelemetry(text)) as { scrape_configs: TelemetryJob[] }).scrape_configs;
  return jobs.filter((j) => j.job_name !== 'vigil');
}

/** A shipped telemetry job pointed at simulators: their addresses and labels, plain HTTP, the token (if the job sends one) from `tokenFile`. */
export function pointedTelemetryJob(job: TelemetryJob, targets: string[], labels: Record<string, string>, tokenFile?: string): TelemetryJob {
  const { tls_config: _tls, ...rest } = job;
  return {
    ...rest,
    scheme: 'http',
    ...(job.authorization ? { authorization: { credentials_file: tokenFile } } : {}),
    static_configs: [{ targets, labels }],
  };
}
