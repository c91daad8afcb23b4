import { join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { startStandInPager, type Page, type StandInPager } from './pager.js';
import { findBinary, startAlertmanager, startPrometheus, type Service } from './service.js';
import type { TelemetryJob } from './telemetry-jobs.js';
import { deployedAlertmanager, deployedPrometheus, durationSeconds, shippedRules, writeScaledRules } from './shipped-files.js';

/**
 * The alerting path of the demo: a real Prometheus running the shipped rules and scrape job, a
 * real Alertmanager running the shipped routing, a stand-in pager and a stand-in heartbeat, all on
 * loopback with their data under `dir`. Only addresses, intervals and `for:` durations differ from
 * the shipped files, all divided by FACTOR.
 */
export const FACTOR = 10;
/** Scrape and evaluation interval of the demo's Prometheus. */
export const INTERVAL_SECONDS = 2;

export interface AlertingStack {
  prometheus: Service;
  alertmanager: Service;
  pager: StandInPager;
  heartbeat: StandInPager;
  stop(): Promise<void>;
}

/** The Debian packages the stack needs and this machine lacks. */
export function missingForAlerting(): string[] {
  return [
    ['prometheus', 'prometheus'],
    ['prometheus-alertmanager', 'prometheus-alertmanager'],
  ]
    .filter(([binary]) => !findBinary(binary!))
    .map(([, pkg]) => pkg!);
}

/**
 * `vigil` takes the webhooks (any replica takes any notification) and is scraped; `replicas`, when
 * given, are scraped instead: every replica of a sharded vigil, `vigil` among them.
 */
export async function startAlertingStack(opts: {
  dir: string;
  vigil: string;
  replicas?: string[];
  onPage?: (p: Page) => void;
  /** Scrapes of the upstreams' own telemetry beside vigil: with them, the optional rules of alerts/telemetry/ too. */
  telemetry?: TelemetryJob[];
}): Promise<AlertingStack> {
  const started: Array<{ stop(): Promise<void> }> = [];
  try {
    const pager = await startStandInPager({ title: 'Stand-in pager', ...(opts.onPage ? { onPage: opts.onPage } : {}) });
    started.push({ stop: () => pager.close() });
    const heartbeat = await startStandInPager({ title: 'Stand-in heartbeat (dead-man’s switch)' });
    started.push({ stop: () => heartbeat.close() });
    // The demo's sink takes notifications without credentials (loopback); the shipped routing sends a token all the same.
    const tokenFile = join(opts.dir, 'alertmanager-sink-token');
    writeFileSync(tokenFile, 'demo-sink-token\n', { mode: 0o600 });
    const alertmanager = await startAlertmanager(
      deployedAlertmanager({
        urls: { vigil: `http://${opts.vigil}/webhook/alertmanager`, pager: `${pager.url}/`, heartbeat: `${heartbeat.url}/` },
        tokenFile,
        factor: FACTOR,
      }),
      ['--cluster.listen-address='],
      'alertmanager',
      { parentDir: opts.dir },
    );
    started.push(alertmanager);
    const rules = join(opts.dir, 'rules');
    mkdirSync(rules);
    const interval = `${INTERVAL_SECONDS}s`;
    // A URL Prometheus puts in every alert's generatorURL: vigil's pages link to its graph.
    const prometheus = await startPrometheus(
      deployedPrometheus({
        targets: opts.replicas ?? [opts.vigil],
        ruleGlob: writeScaledRules(rules, FACTOR, opts.telemetry !== undefined),
        alertmanager: new URL(alertmanager.url).host,
        interval,
        ...(opts.telemetry ? { jobs: opts.telemetry } : {}),
      }),
      ['--rules.alert.resend-delay=2s'],
      { parentDir: opts.dir },
    );
    started.push(prometheus);
    return {
      prometheus,
      alertmanager,
      pager,
      heartbeat,
      stop: async () => {
        for (const s of started.reverse()) await s.stop();
      },
    };
  } catch (e) {
    for (const s of started.reverse()) await s.stop();
    throw e;
  }
}

/**
 * About how long after a fault `alert` reaches its receivers in the demo: the next collection,
 * scrape and evaluation, its scaled `for:`, and the route's scaled group_wait (30 s → 3 s).
 */
export function aboutSeconds(alert: string, collectionSeconds: number): number {
  const rule = shippedRules().find((r) => r.alert === alert);
  if (!rule) throw new Error(`no shipped rule ${alert}`);
  return collectionSeconds + 2 * INTERVAL_SECONDS + Math.round(durationSeconds(rule.for) / FACTOR) + Math.round(30 / FACTOR);
}

export function severityOf(alert: string): string {
  return shippedRules().find((r) => r.alert === alert)?.severity ?? '';
}
