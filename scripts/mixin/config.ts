import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { isThresholdName, type ThresholdName } from './thresholds.js';

/**
 * What a user sets to fit the shipped rules and dashboards to their Prometheus, as a monitoring
 * mixin's `_config`. The committed alerts/*.rules.yml and dashboards/*.json are the output of
 * DEFAULT_MIXIN; `npm run mixin -- --config=FILE --out=DIR` writes them for yours.
 */
export interface MixinConfig {
  /** Extra matchers on every series of vigil the rules read, e.g. `env="prod"`. */
  selector: string;
  /** The scrape job of vigil: `up{job=...}` in VigilDown and VigilAbsent, and the dashboards' default. */
  job: string;
  /** A label that tells Prometheus-level clusters or environments apart: added to every `by` and `on`, and a dashboard variable. */
  clusterLabel: string;
  /** `for:` per alert name, replacing the shipped one. */
  for: Record<string, string>;
  /** `severity` per alert name, replacing the shipped one. */
  severity: Record<string, string>;
  /** Numbers of the rules by name (scripts/mixin/thresholds.ts), replacing the shipped ones. */
  thresholds: Partial<Record<ThresholdName, number>>;
  /**
   * Whether Prometheus scrapes the upstreams' own telemetry beside vigil: the optional rules of
   * alerts/telemetry/ are then part of the output (docs/upstream-telemetry.md). Off by default, so
   * nothing reads series that are not there.
   */
  telemetry: boolean;
}

export const DEFAULT_MIXIN: MixinConfig = { selector: '', job: 'vigil', clusterLabel: '', for: {}, severity: {}, thresholds: {}, telemetry: false };

const labelName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a Prometheus label name');
const duration = z.string().regex(/^(\d+(ms|s|m|h|d|w|y))+$/, 'must be a Prometheus duration such as 5m');

const schema = z.strictObject({
  selector: z.string().default(''),
  job: z.string().min(1).default('vigil'),
  cluster_label: z.union([labelName, z.literal('')]).default(''),
  for: z.record(z.string(), duration).default({}),
  severity: z.record(z.string(), z.enum(['critical', 'warning', 'info', 'none'])).default({}),
  thresholds: z
    .record(z.string(), z.number().int('must be a whole number').nonnegative())
    .superRefine((o, ctx) => {
      for (const k of Object.keys(o))
        if (!isThresholdName(k)) ctx.addIssue({ code: 'custom', path: [k], message: 'is no threshold of the rules (scripts/mixin/thresholds.ts)' });
    })
    .default({}),
  telemetry: z.boolean().default(false),
});

/** Reads a mixin config file (YAML: selector, job, cluster_label, for, severity, thresholds, telemetry); errors name the key. */
export function parseMixinConfig(text: string, file: string): MixinConfig {
  const r = schema.safeParse(parse(text) ?? {});
  if (!r.success) {
    throw new Error(`${file}: ${r.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`);
  }
  return {
    selector: r.data.selector,
    job: r.data.job,
    clusterLabel: r.data.cluster_label,
    for: r.data.for,
    severity: r.data.severity,
    thresholds: r.data.thresholds as MixinConfig['thresholds'],
    telemetry: r.data.telemetry,
  };
}

export function loadMixinConfig(file: string): MixinConfig {
  return parseMixinConfig(readFileSync(file, 'utf8'), file);
}
