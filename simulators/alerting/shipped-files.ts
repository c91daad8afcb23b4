import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

/**
 * The alerting files vigil ships (alerts/*.rules.yml, deploy/prometheus/prometheus.yml,
 * deploy/alertmanager/alertmanager.yml), read from the checkout when a demo or a test starts and
 * changed only in addresses, intervals and `for:` durations: never a second copy that can drift.
 */

/** The checkout's root: the nearest folder above this file that holds alerts/ and deploy/. */
export function repoRoot(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'alerts')) && existsSync(join(dir, 'deploy', 'alertmanager'))) return dir;
    if (dirname(dir) === dir) throw new Error('the alerting files (alerts/, deploy/) are not beside this checkout');
  }
}

type Obj = Record<string, unknown>;
export interface PlainRoute extends Obj {
  receiver?: string;
  matchers?: string[];
  group_wait?: string;
  group_interval?: string;
  repeat_interval?: string;
  routes?: PlainRoute[];
}
export interface PlainAlertmanager {
  route: PlainRoute;
  receivers: Array<{ name: string; webhook_configs: Array<Obj & { url?: string; http_config?: { authorization?: Obj } }> }>;
  inhibit_rules?: Array<{ source_matchers: string[]; target_matchers: string[]; equal: string[] }>;
}

export function shippedAlertmanager(file = 'deploy/alertmanager/alertmanager.yml'): PlainAlertmanager {
  return parse(readFileSync(join(repoRoot(), file), 'utf8')) as PlainAlertmanager;
}

/** Every route of a tree, depth first. */
export function allRoutes(r: PlainRoute): PlainRoute[] {
  return [r, ...(r.routes ?? []).flatMap(allRoutes)];
}

/** A Prometheus duration in seconds. */
export function durationSeconds(d: string): number {
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
  let s = 0;
  for (const m of d.matchAll(/(\d+)([smhd])/g)) s += Number(m[1]) * units[m[2]!]!;
  return s;
}

/** A Prometheus duration divided by `factor`, in whole seconds (at least 1s unless it was 0). */
export function scaled(d: string, factor: number): string {
  const s = durationSeconds(d);
  return s === 0 ? '0s' : `${Math.max(1, Math.round(s / factor))}s`;
}

export interface ShippedRule {
  alert: string;
  for: string;
  severity: string;
}

/** Every alerting rule of alerts/*.rules.yml: name, `for:` and severity. */
export function shippedRules(): ShippedRule[] {
  const dir = join(repoRoot(), 'alerts');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.rules.yml'))
    .flatMap(
      (f) =>
        (parse(readFileSync(join(dir, f), 'utf8')) as { groups: Array<{ rules: Array<{ alert?: string; for?: string; labels?: Record<string, string> }> }> })
          .groups,
    )
    .flatMap((g) => g.rules)
    .filter((r) => r.alert)
    .map((r) => ({ alert: r.alert!, for: r.for ?? '0s', severity: r.labels?.severity ?? '' }));
}

/**
 * alerts/*.rules.yml as shipped (with `telemetry`, the optional alerts/telemetry/*.rules.yml too),
 * each `for:` divided by `factor`, written into `dir`; returns the glob Prometheus' `rule_files` takes.
 */
export function writeScaledRules(dir: string, factor: number, telemetry = false): string {
  const alerts = join(repoRoot(), 'alerts');
  const from = telemetry ? [alerts, join(alerts, 'telemetry')] : [alerts];
  for (const d of from) {
    for (const f of readdirSync(d).filter((x) => x.endsWith('.rules.yml'))) {
      const doc = parse(readFileSync(join(d, f), 'utf8')) as { groups: Array<{ rules: Array<{ for?: string }> }> };
      for (const g of doc.groups) for (const r of g.rules) if (r.for) r.for = scaled(r.for, factor);
      writeFileSync(join(dir, d === alerts ? f : `telemetry-${f}`), stringify(doc));
    }
  }
  return join(dir, '*.rules.yml');
}

/**
 * deploy/prometheus/prometheus.yml as shipped, with its `vigil` job scraping `targets`, every
 * interval set to `interval`, the rules from `ruleGlob` and Alertmanager at `alertmanager`.
 */
export function deployedPrometheus(opts: { targets: string[]; ruleGlob: string; alertmanager: string; interval: string; jobs?: readonly object[] }): unknown {
  const p = parse(readFileSync(join(repoRoot(), 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
    global: Record<string, string>;
    rule_files: string[];
    alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
    scrape_configs: Array<Obj & { job_name: string; static_configs: Array<{ targets: string[] }> }>;
  };
  p.global.scrape_interval = opts.interval;
  p.global.evaluation_interval = opts.interval;
  p.rule_files = [opts.ruleGlob];
  p.alerting.alertmanagers[0]!.static_configs[0]!.targets = [opts.alertmanager];
  const job = p.scrape_configs.find((j) => j.job_name === 'vigil');
  if (!job) throw new Error('deploy/prometheus/prometheus.yml has no job "vigil"');
  job.scrape_interval = opts.interval;
  job.scrape_timeout = opts.interval;
  job.static_configs[0]!.targets = opts.targets;
  p.scrape_configs.push(...((opts.jobs ?? []) as unknown as typeof p.scrape_configs));
  return p;
}

/**
 * deploy/alertmanager/alertmanager.yml as shipped: every route's waits and intervals divided by
 * `factor`, each receiver's webhook sent to `urls[name]`, vigil's with the bearer token in `tokenFile`.
 */
export function deployedAlertmanager(opts: { urls: Record<string, string>; tokenFile: string; factor: number }): PlainAlertmanager {
  const am = shippedAlertmanager();
  for (const r of allRoutes(am.route)) {
    for (const key of ['group_wait', 'group_interval', 'repeat_interval'] as const) {
      const v = r[key];
      if (typeof v === 'string') r[key] = scaled(v, opts.factor);
    }
  }
  for (const rcv of am.receivers) {
    const url = opts.urls[rcv.name];
    if (!url) throw new Error(`no stand-in for receiver ${rcv.name}`);
    for (const w of rcv.webhook_configs) {
      w.url = url;
      if (w.http_config?.authorization) w.http_config.authorization.credentials_file = opts.tokenFile;
    }
  }
  return am;
}
