import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import { scheduleIntervalSeconds } from '../../src/config-fields/schedule.js';
import { FAILURE_CLASSES, type FailureClass } from '../../simulators/alerting/failure-classes/index.js';

/**
 * The paging matrix computed from the shipped files: each failure class with its alert's severity
 * and `for:` (alerts/*.rules.yml), the receivers Alertmanager's routing gives it and the
 * inhibitions that apply (deploy/alertmanager/alertmanager.yml), and the longest time from fault
 * to notification with the shipped intervals (deploy/prometheus/prometheus.yml and vigil's
 * default schedules and timeouts).
 */
const repo = (p: string) => new URL(`../../${p}`, import.meta.url);

export interface Rule {
  alert: string;
  expr: string;
  for: string;
  severity: string;
  /** A rule of alerts/telemetry/: loaded only where Prometheus scrapes the upstreams' own telemetry. */
  optional?: true;
}

interface Route {
  receiver?: string;
  matchers?: string[];
  group_wait?: string;
  continue?: boolean;
  routes?: Route[];
}

interface InhibitRule {
  source_matchers: string[];
  target_matchers: string[];
  equal: string[];
}

export interface Shipped {
  rules: Rule[];
  route: Route;
  inhibitRules: InhibitRule[];
  scrapeIntervalSeconds: number;
  scrapeTimeoutSeconds: number;
  evaluationIntervalSeconds: number;
}

/** The alerting rules of the rule files of `dir`, in file order. */
function rulesOf(dir: URL, optional: boolean): Rule[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.rules.yml'))
    .sort()
    .flatMap(
      (f) =>
        (
          parse(readFileSync(new URL(f, dir), 'utf8')) as {
            groups: Array<{ rules: Array<{ alert?: string; expr: string; for?: string; labels?: Record<string, string> }> }>;
          }
        ).groups,
    )
    .flatMap((g) => g.rules)
    .filter((r) => r.alert)
    .map((r) => ({ alert: r.alert!, expr: r.expr, for: r.for ?? '0s', severity: r.labels?.severity ?? '', ...(optional ? { optional: true as const } : {}) }));
}

export function readShipped(): Shipped {
  const rules = [...rulesOf(repo('alerts/'), false), ...rulesOf(repo('alerts/telemetry/'), true)];
  const am = parse(readFileSync(repo('deploy/alertmanager/alertmanager.yml'), 'utf8')) as { route: Route; inhibit_rules?: InhibitRule[] };
  const prom = parse(readFileSync(repo('deploy/prometheus/prometheus.yml'), 'utf8')) as {
    global: { scrape_interval?: string; evaluation_interval?: string };
    scrape_configs: Array<{ job_name: string; scrape_interval?: string; scrape_timeout?: string }>;
  };
  const job = prom.scrape_configs.find((j) => j.job_name === 'vigil');
  if (!job) throw new Error('deploy/prometheus/prometheus.yml has no job "vigil"');
  return {
    rules,
    route: am.route,
    inhibitRules: am.inhibit_rules ?? [],
    scrapeIntervalSeconds: seconds(job.scrape_interval ?? prom.global.scrape_interval ?? '1m'),
    scrapeTimeoutSeconds: seconds(job.scrape_timeout ?? '10s'),
    evaluationIntervalSeconds: seconds(prom.global.evaluation_interval ?? '1m'),
  };
}

/** A Prometheus duration (`1h30m`, `2m`, `30s`, `0s`) in seconds. */
export function seconds(d: string): number {
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, y: 31_536_000 };
  let total = 0;
  const re = /(\d+)(ms|s|m|h|d|w|y)/g;
  let consumed = '';
  for (const m of d.matchAll(re)) {
    total += Number(m[1]) * units[m[2]!]!;
    consumed += m[0];
  }
  if (consumed !== d) throw new Error(`not a duration: ${d}`);
  return total;
}

export function duration(s: number): string {
  if (s === 0) return '0s';
  const parts: string[] = [];
  for (const [unit, n] of [
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (s >= n) {
      parts.push(`${Math.floor(s / n)}${unit}`);
      s %= n;
    }
  }
  return parts.join(' ');
}

/** Whether labels satisfy an Alertmanager matcher such as `alertname=~"A|B"`. */
export function matches(matcher: string, labels: Record<string, string>): boolean {
  const m = /^\s*([A-Za-z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*$/.exec(matcher);
  if (!m) throw new Error(`unreadable matcher: ${matcher}`);
  const value = labels[m[1]!] ?? '';
  const want = m[3]!.replace(/\\(.)/g, '$1');
  switch (m[2]) {
    case '=':
      return value === want;
    case '!=':
      return value !== want;
    case '=~':
      return new RegExp(`^(?:${want})$`).test(value);
    default:
      return !new RegExp(`^(?:${want})$`).test(value);
  }
}

/** The receivers (with their group_wait) an alert reaches, walking the routing tree as Alertmanager does. */
export function routeOf(route: Route, labels: Record<string, string>, groupWait = '30s'): Array<{ receiver: string; groupWait: string }> {
  const wait = route.group_wait ?? groupWait;
  const found: Array<{ receiver: string; groupWait: string }> = [];
  for (const child of route.routes ?? []) {
    if (!(child.matchers ?? []).every((m) => matches(m, labels))) continue;
    found.push(...routeOf({ receiver: route.receiver, ...child }, labels, wait));
    if (!child.continue) break;
  }
  return found.length > 0 ? found : [{ receiver: route.receiver ?? '', groupWait: wait }];
}

export interface MatrixRow extends FailureClass {
  severity: string;
  for: string;
  receivers: string[];
  /** The longest time from the fault to the first notification, with the shipped intervals; none for a control. */
  pageWithinSeconds?: number;
  inhibitedBy: string[];
  /** The labels an inhibiting alert must share with this one (`target`, `region`). */
  inhibitedOn: string[];
  inhibits: string[];
}

/** Alerts an inhibit rule's matchers can name: every alert of the rules whose labels satisfy them, each once (an optional rule may share a name). */
export const named = (rules: Rule[], matchers: string[]) => [
  ...new Set(
    rules
      .filter((r) => matchers.filter((m) => /^\s*(alertname|severity)\b/.test(m)).every((m) => matches(m, { alertname: r.alert, severity: r.severity })))
      .map((r) => r.alert),
  ),
];

/** How often vigil sees each area with its default schedule, and how long a hung upstream holds a poll. */
function collection(): Record<FailureClass['area'], { intervalSeconds: number; timeoutSeconds: number }> {
  const c = parseConfig(
    'secrets: [{name: a, address: "http://a"}]\nagents: [{name: b, address: "http://b"}]\nteams: [{name: c, address: "http://c", organization: o, token_file: /dev/null}]\n',
    'defaults.yml',
  );
  const of = (t: { schedule: string; timeout: number }) => ({ intervalSeconds: scheduleIntervalSeconds(t.schedule), timeoutSeconds: t.timeout / 1000 });
  return {
    'Secrets service': of(c.secrets[0]!),
    'Cluster agents': of(c.agents[0]!),
    'Team management': of(c.teams[0]!),
    'vigil and the alert path': { intervalSeconds: 0, timeoutSeconds: 0 },
  };
}

export function pagingMatrix(shipped: Shipped = readShipped()): MatrixRow[] {
  const polls = collection();
  return FAILURE_CLASSES.map((fc) => {
    const rule = shipped.rules.find((r) => r.alert === fc.alert && (r.optional ?? false) === (fc.optional ?? false));
    if (!rule) throw new Error(`failure class ${fc.id} names ${fc.alert}, which no rule of ${fc.optional ? 'alerts/telemetry/' : 'alerts/'} defines`);
    if (fc.control) return { ...fc, severity: rule.severity, for: rule.for, receivers: [], inhibitedBy: [], inhibitedOn: [], inhibits: [] };
    const routes = routeOf(shipped.route, { alertname: rule.alert, severity: rule.severity });
    // Seen by vigil at the next poll (a hung upstream holds it for its timeout), then by
    // Prometheus at the next scrape (a dead vigil: at the scrape's timeout), by the rule at the next
    // evaluation, held for `for:`, and sent after the group's wait.
    const poll = polls[fc.area];
    // An upstream's own telemetry is seen at Prometheus' next scrape of it.
    const seen =
      fc.alert === 'VigilDown'
        ? shipped.scrapeIntervalSeconds + shipped.scrapeTimeoutSeconds
        : fc.optional
          ? shipped.scrapeIntervalSeconds
          : poll.intervalSeconds + poll.timeoutSeconds + shipped.scrapeIntervalSeconds;
    const firstWait = Math.max(...routes.map((r) => seconds(r.groupWait)));
    return {
      ...fc,
      severity: rule.severity,
      for: rule.for,
      receivers: routes.map((r) => r.receiver),
      pageWithinSeconds: seen + shipped.evaluationIntervalSeconds + seconds(rule.for) + firstWait,
      inhibitedBy: shipped.inhibitRules
        .filter((i) => named(shipped.rules, i.target_matchers).includes(rule.alert))
        .flatMap((i) => named(shipped.rules, i.source_matchers)),
      inhibitedOn: [...new Set(shipped.inhibitRules.filter((i) => named(shipped.rules, i.target_matchers).includes(rule.alert)).flatMap((i) => i.equal))],
      inhibits: shipped.inhibitRules
        .filter((i) => named(shipped.rules, i.source_matchers).includes(rule.alert))
        .flatMap((i) => named(shipped.rules, i.target_matchers)),
    };
  });
}
