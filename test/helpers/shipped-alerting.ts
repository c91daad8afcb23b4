import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments, stringify } from 'yaml';

/**
 * The shipped alerting files as a test deploys them: read from the repository at test time, with
 * only addresses, intervals and `for:` durations changed, never a second copy that can drift.
 */
export const repoPath = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));

type Obj = Record<string, unknown>;
export interface PlainRoute extends Obj {
  receiver?: string;
  matchers?: string[];
  routes?: PlainRoute[];
}
export interface PlainAlertmanager {
  route: PlainRoute;
  receivers: Array<{ name: string; webhook_configs: Array<Obj & { url?: string; http_config?: { authorization?: Obj } }> }>;
  inhibit_rules?: Array<{ source_matchers: string[]; target_matchers: string[]; equal: string[] }>;
}

export function shippedAlertmanager(file = 'deploy/alertmanager/alertmanager.yml'): PlainAlertmanager {
  return parse(readFileSync(repoPath(file), 'utf8')) as PlainAlertmanager;
}

interface OperatorMatcher {
  name: string;
  value: string;
  matchType?: string;
}
interface OperatorRoute {
  receiver?: string;
  matchers?: OperatorMatcher[];
  groupBy?: string[];
  groupWait?: string;
  groupInterval?: string;
  repeatInterval?: string;
  continue?: boolean;
  routes?: OperatorRoute[];
}

const matcherText = (m: OperatorMatcher) => `${m.name}${m.matchType ?? '='}${JSON.stringify(m.value)}`;

function plainRoute(r: OperatorRoute): PlainRoute {
  const out: PlainRoute = {};
  if (r.receiver !== undefined) out.receiver = r.receiver;
  if (r.matchers) out.matchers = r.matchers.map(matcherText);
  if (r.groupBy) out.group_by = r.groupBy;
  if (r.groupWait) out.group_wait = r.groupWait;
  if (r.groupInterval) out.group_interval = r.groupInterval;
  if (r.repeatInterval) out.repeat_interval = r.repeatInterval;
  if (r.continue) out.continue = true;
  if (r.routes) out.routes = r.routes.map(plainRoute);
  return out;
}

/**
 * The committed Kubernetes AlertmanagerConfig read back into Alertmanager's own configuration
 * format (written here independently of the generator), so the same checks and the same real
 * Alertmanager run on it. Receivers become webhooks to `receiverUrl(name)`.
 */
export function kubernetesAlertmanager(receiverUrl: (name: string) => string = (n) => `http://${n}.invalid/`): PlainAlertmanager {
  const text = readFileSync(repoPath('deploy/kubernetes/alertmanagerconfig.yaml'), 'utf8');
  const spec = (parseAllDocuments(text)[0]!.toJS() as { spec: { route: OperatorRoute; receivers: Array<{ name: string }>; inhibitRules: Array<{ sourceMatch: OperatorMatcher[]; targetMatch: OperatorMatcher[]; equal: string[] }> } }).spec;
  return {
    route: plainRoute(spec.route),
    receivers: spec.receivers.map((r) => ({ name: r.name, webhook_configs: [{ url: receiverUrl(r.name) }] })),
    inhibit_rules: spec.inhibitRules.map((r) => ({ source_matchers: r.sourceMatch.map(matcherText), target_matchers: r.targetMatch.map(matcherText), equal: r.equal })),
  };
}

/** Every route of a tree, depth first. */
export function allRoutes(r: PlainRoute): PlainRoute[] {
  return [r, ...(r.routes ?? []).flatMap(allRoutes)];
}

/** Every webhook of the config sent to `url(receiverName)`, auth dropped; routing and inhibition untouched. */
export function withReceiverUrls(am: PlainAlertmanager, url: (name: string) => string): PlainAlertmanager {
  const copy = structuredClone(am);
  for (const r of copy.receivers) for (const w of r.webhook_configs) {
    w.url = url(r.name);
    delete w.http_config;
  }
  return copy;
}

/** A matcher in one spelling (`name="value"`), whatever quoting and spaces the file used. */
export function normalMatcher(text: string): string {
  const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*$/.exec(text);
  if (!m) throw new Error(`unreadable matcher: ${text}`);
  return `${m[1]}${m[2]}${JSON.stringify(m[3]!.replace(/\\(.)/g, '$1'))}`;
}

/** Routing and inhibition only (receivers' addresses and auth left out), matchers in one spelling. */
export function routingOf(am: PlainAlertmanager): unknown {
  const route = (r: PlainRoute): PlainRoute => ({ ...r, ...(r.matchers ? { matchers: r.matchers.map(normalMatcher) } : {}), ...(r.routes ? { routes: r.routes.map(route) } : {}) });
  return {
    route: route(am.route),
    receivers: am.receivers.map((r) => r.name),
    inhibit_rules: (am.inhibit_rules ?? []).map((r) => ({ ...r, source_matchers: r.source_matchers.map(normalMatcher), target_matchers: r.target_matchers.map(normalMatcher) })),
  };
}

/** A Prometheus duration divided by `factor`, whole seconds (at least 1s unless it was 0). */
export function scaled(d: string, factor: number): string {
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
  let s = 0;
  for (const m of d.matchAll(/(\d+)([smhd])/g)) s += Number(m[1]) * units[m[2]!]!;
  return s === 0 ? '0s' : `${Math.max(1, Math.round(s / factor))}s`;
}

/**
 * alerts/*.rules.yml as shipped, each `for:` divided by `factor`, written into `dir`; returns the
 * glob Prometheus' `rule_files` takes.
 */
export function writeScaledRules(dir: string, factor: number): string {
  const alerts = repoPath('alerts/');
  for (const f of readdirSync(alerts).filter((x) => x.endsWith('.rules.yml'))) {
    const doc = parse(readFileSync(join(alerts, f), 'utf8')) as { groups: Array<{ rules: Array<{ for?: string }> }> };
    for (const g of doc.groups) for (const r of g.rules) if (r.for) r.for = scaled(r.for, factor);
    writeFileSync(join(dir, f), stringify(doc));
  }
  return join(dir, '*.rules.yml');
}

/**
 * deploy/prometheus/prometheus.yml as shipped, with its `vigil` job scraping `targets`, every
 * interval set to `interval`, the rules from `ruleGlob` and Alertmanager at `alertmanager`.
 */
export function deployedPrometheus(opts: { targets: string[]; ruleGlob: string; alertmanager: string; interval: string }): unknown {
  const p = parse(readFileSync(repoPath('deploy/prometheus/prometheus.yml'), 'utf8')) as {
    global: Record<string, string>;
    rule_files: string[];
    alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
    scrape_configs: Array<Record<string, unknown> & { job_name: string; static_configs: Array<{ targets: string[] }> }>;
  };
  p.global.scrape_interval = opts.interval;
  p.global.evaluation_interval = opts.interval;
  p.rule_files = [opts.ruleGlob];
  p.alerting.alertmanagers[0]!.static_configs[0]!.targets = [opts.alertmanager];
  const job = p.scrape_configs.find((j) => j.job_name === 'vigil')!;
  job.scrape_interval = opts.interval;
  job.scrape_timeout = opts.interval;
  job.static_configs[0]!.targets = opts.targets;
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
      if (typeof r[key] === 'string') r[key] = scaled(r[key], opts.factor);
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
