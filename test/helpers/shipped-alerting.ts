import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import {
  allRoutes,
  deployedAlertmanager,
  deployedPrometheus,
  shippedAlertmanager,
  writeScaledRules,
  type PlainAlertmanager,
  type PlainRoute,
} from '../../simulators/alerting/shipped-files.js';

/**
 * The shipped alerting files as a test deploys them: read from the repository at test time, with
 * only addresses, intervals and `for:` durations changed, never a second copy that can drift.
 */
export const repoPath = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));

export { allRoutes, deployedAlertmanager, deployedPrometheus, shippedAlertmanager, writeScaledRules, type PlainAlertmanager, type PlainRoute };

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
  const spec = (
    parseAllDocuments(text)[0]!.toJS() as {
      spec: {
        route: OperatorRoute;
        receivers: Array<{ name: string }>;
        inhibitRules: Array<{ sourceMatch: OperatorMatcher[]; targetMatch: OperatorMatcher[]; equal: string[] }>;
      };
    }
  ).spec;
  return {
    route: plainRoute(spec.route),
    receivers: spec.receivers.map((r) => ({ name: r.name, webhook_configs: [{ url: receiverUrl(r.name) }] })),
    inhibit_rules: spec.inhibitRules.map((r) => ({
      source_matchers: r.sourceMatch.map(matcherText),
      target_matchers: r.targetMatch.map(matcherText),
      equal: r.equal,
    })),
  };
}

/** Every webhook of the config sent to `url(receiverName)`, auth dropped; routing and inhibition untouched. */
export function withReceiverUrls(am: PlainAlertmanager, url: (name: string) => string): PlainAlertmanager {
  const copy = structuredClone(am);
  for (const r of copy.receivers)
    for (const w of r.webhook_configs) {
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
  const route = (r: PlainRoute): PlainRoute => ({
    ...r,
    ...(r.matchers ? { matchers: r.matchers.map(normalMatcher) } : {}),
    ...(r.routes ? { routes: r.routes.map(route) } : {}),
  });
  return {
    route: route(am.route),
    receivers: am.receivers.map((r) => r.name),
    inhibit_rules: (am.inhibit_rules ?? []).map((r) => ({
      ...r,
      source_matchers: r.source_matchers.map(normalMatcher),
      target_matchers: r.target_matchers.map(normalMatcher),
    })),
  };
}
