import type { TelemetryJob } from '../../simulators/alerting/telemetry-jobs.js';
import { tempFile } from './daemon.js';
import { startVigil, type VigilProcess } from './process.js';
import { deployedAlertmanager, deployedPrometheus, writeScaledRules } from './shipped-alerting.js';
import { freePort, startAlertmanager, startPrometheus, type Service } from './processes.js';
import { standIn, type Posted } from './stand-in-receiver.js';
import { tempDir } from './temp-dir.js';
import { waitFor } from './wait.js';

/**
 * The shipped alerting as test/e2e/paging.test.ts runs it, for one vigil: the rules of alerts/
 * (every `for:` divided by `factor`) in a real Prometheus scraping it each second, the routing of
 * deploy/alertmanager/alertmanager.yml (its waits divided too) in a real Alertmanager, and stand-ins
 * for the pager and for vigil's alert sink (where what pages nobody lands).
 */
export interface AlertingStack {
  vigil: VigilProcess;
  prometheus: Service;
  alertmanager: Service;
  /** What paged. */
  pager: Posted[];
  /** What Alertmanager sent vigil's alert sink: every notification, the warnings alone. */
  sink: Posted[];
  /** An instant query's values. */
  query(expr: string): Promise<string[]>;
  /** The firing alerts and vigil's last output: a wait's failure report. */
  state(): Promise<string>;
  stop(): Promise<void>;
}

/** Beside vigil: Prometheus' scrapes of the upstreams' own telemetry, and the optional rules of alerts/telemetry/ on it. */
export interface TelemetryScrapes {
  jobs: TelemetryJob[];
}

export async function startAlertingStack(config: string, factor = 10, telemetry?: TelemetryScrapes): Promise<AlertingStack> {
  const pager = standIn();
  const sink = standIn();
  for (const s of [pager.server, sink.server]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = await freePort();
  const vigil = startVigil([
    `--config.file=${tempFile('vigil.yml', config)}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.format=json',
    '--log.level=warn',
  ]);
  await waitFor('vigil ready', async () => ((await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok ? true : undefined), 60_000);
  const alertmanager = await startAlertmanager(
    deployedAlertmanager({ urls: { vigil: sink.url(), pager: pager.url(), heartbeat: sink.url() }, tokenFile: tempFile('am-token', 'unused'), factor }),
  );
  const rules = writeScaledRules(tempDir('vigil-e2e-rules-'), factor, telemetry !== undefined);
  // Prometheus resends a firing alert every resend-delay (1m by default); 2s gets one through promptly.
  const prometheus = await startPrometheus(
    deployedPrometheus({
      targets: [`127.0.0.1:${port}`],
      ruleGlob: rules,
      alertmanager: new URL(alertmanager.url).host,
      interval: '1s',
      jobs: telemetry?.jobs,
    }),
    ['--rules.alert.resend-delay=2s'],
  );
  const query = async (expr: string) => {
    const body = (await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as {
      data: { result: Array<{ value: [number, string] }> };
    };
    return body.data.result.map((r) => r.value[1]);
  };
  return {
    vigil,
    prometheus,
    alertmanager,
    pager: pager.posts,
    sink: sink.posts,
    query,
    state: async () =>
      `\nprometheus alerts: ${(await (await fetch(`${prometheus.url}/api/v1/alerts`)).text()).slice(0, 2000)}\nvigil: ${vigil.output().slice(-1500)}`,
    stop: async () => {
      // Nothing is evaluated or routed any more before what they watch goes.
      await Promise.all([prometheus.stop(), alertmanager.stop()]);
      await Promise.all([vigil.stop(), ...[pager, sink].map(({ server }) => new Promise((r) => server.close(r)))]);
    },
  };
}
