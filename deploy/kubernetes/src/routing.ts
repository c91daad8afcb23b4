import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * The routing and inhibition of deploy/alertmanager/alertmanager.yml, in the Prometheus Operator's
 * AlertmanagerConfig spelling: one routing for both ways of deploying, written once.
 */
const PLAIN = new URL('../../alertmanager/alertmanager.yml', import.meta.url);

export interface Matcher {
  name: string;
  value: string;
  matchType: '=' | '!=' | '=~' | '!~';
}

interface PlainRoute {
  receiver?: string;
  matchers?: string[];
  group_by?: string[];
  group_wait?: string;
  group_interval?: string;
  repeat_interval?: string;
  continue?: boolean;
  routes?: PlainRoute[];
}

interface PlainInhibitRule {
  source_matchers?: string[];
  target_matchers?: string[];
  equal?: string[];
}

export interface PlainAlertmanagerConfig {
  route: PlainRoute;
  receivers: Array<{ name: string }>;
  inhibit_rules?: PlainInhibitRule[];
}

export interface OperatorRoute {
  receiver?: string;
  matchers?: Matcher[];
  groupBy?: string[];
  groupWait?: string;
  groupInterval?: string;
  repeatInterval?: string;
  continue?: boolean;
  routes?: OperatorRoute[];
}

export interface OperatorInhibitRule {
  sourceMatch: Matcher[];
  targetMatch: Matcher[];
  equal: string[];
}

export function plainAlertmanagerConfig(url: URL = PLAIN): PlainAlertmanagerConfig {
  return parse(readFileSync(url, 'utf8')) as PlainAlertmanagerConfig;
}

/** `alertname=~"A|B"` → `{name: 'alertname', value: 'A|B', matchType: '=~'}`. */
export function toMatcher(text: string): Matcher {
  const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*$/.exec(text);
  if (!m) throw new Error(`not a matcher Alertmanager's configuration accepts here: ${text}`);
  return { name: m[1]!, matchType: m[2] as Matcher['matchType'], value: m[3]!.replace(/\\(.)/g, '$1') };
}

export function operatorRoute(r: PlainRoute): OperatorRoute {
  const out: OperatorRoute = {};
  if (r.receiver !== undefined) out.receiver = r.receiver;
  if (r.matchers) out.matchers = r.matchers.map(toMatcher);
  if (r.group_by) out.groupBy = r.group_by;
  if (r.group_wait) out.groupWait = r.group_wait;
  if (r.group_interval) out.groupInterval = r.group_interval;
  if (r.repeat_interval) out.repeatInterval = r.repeat_interval;
  if (r.continue) out.continue = true;
  if (r.routes) out.routes = r.routes.map(operatorRoute);
  return out;
}

export function operatorInhibitRules(rules: PlainInhibitRule[] = []): OperatorInhibitRule[] {
  return rules.map((r) => ({
    sourceMatch: (r.source_matchers ?? []).map(toMatcher),
    targetMatch: (r.target_matchers ?? []).map(toMatcher),
    equal: r.equal ?? [],
  }));
}
