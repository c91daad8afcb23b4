import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageSections, screenshotRecord } from '../../scripts/status-page-sections.js';
import { freePort } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

/**
 * `npm run demo` as a newcomer runs it (here from source): the simulators, vigil, and the
 * alerting path on the shipped files. A fault injected with the command the demo prints pages at
 * the stand-in pager and lands in vigil's history; stopping the demo leaves no process and no
 * temp data behind.
 */
const DEMO = fileURLToPath(new URL('../../simulators/demo.ts', import.meta.url));
let demo: ChildProcess;
let out = '';
let exited: Promise<number | null>;

const printed = (label: RegExp) => label.exec(out)?.[1];

beforeAll(async () => {
  const port = await freePort();
  demo = spawn(process.execPath, ['--import', 'tsx', DEMO, `--port=${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  demo.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  demo.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  exited = new Promise((r) => demo.once('exit', (code) => r(code)));
  await waitFor('the demo to print its fault commands', async () => (out.includes('Ctrl-C stops the demo.') ? true : undefined), 120_000, {
    everyMs: 200,
  }).catch((e: Error) => {
    throw new Error(`${e.message}\n${out}`);
  });
}, 130_000);

afterAll(() => {
  if (demo.exitCode === null) demo.kill('SIGKILL');
});

/** Processes whose command line names `dir`: vigil (its config), Prometheus and Alertmanager (their data). */
function processesUnder(dir: string): string[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .flatMap((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
        return cmd.includes(dir) ? [`${pid}: ${cmd}`] : [];
      } catch {
        return [];
      }
    });
}

describe('the demo', () => {
  let vigil = '';
  let pager = '';
  let prometheus = '';
  let dir = '';
  let drPrimary = '';

  it('starts Prometheus, Alertmanager and a stand-in pager on the shipped files, and says what each fault pages', () => {
    vigil = printed(/status page\s+(http:\S+?)\/\s/) ?? '';
    pager = printed(/pager\s+(http:\S+?)\/\s/) ?? '';
    prometheus = printed(/Prometheus\s+(http:\S+?)\/alerts/) ?? '';
    dir = printed(/temp data\s+(\S+)/) ?? '';
    drPrimary = printed(/dr-primary\s+(http:\S+)/) ?? '';
    expect([vigil, pager, prometheus, dir, drPrimary].every((s) => s !== '')).toBe(true);
    expect(out).toMatch(/disconnect the DR secondary: SecretsReplicationSecondaryDisconnected \(critical\) pages in ~\d+ s/);
    expect(out).toMatch(
      /take the 3 client nodes of pool default down [^:]*: SchedulerNodePoolDown \(critical\) pages in ~\d+ s; SchedulerNodeDownLong \(warning\)/,
    );
    expect(processesUnder(dir).length).toBeGreaterThanOrEqual(3);
  });

  it('shows a cluster of three nodes, found from its one address, and says what each node fault pages', async () => {
    expect(out).toMatch(/the nodes of three-nodes .*\n {4}node-1\s+http:\S+\n {4}node-2\s+http:\S+\n {4}node-3\s+http:\S+\n/);
    expect(out).toMatch(
      /seal the standby node-2 of three-nodes [^:]*: SecretsNodeSealed \(warning\) reaches vigil's history in ~\d+ s; SecretsRaftFailureToleranceLost \(critical\) pages in ~\d+ s; SecretsRaftServerUnhealthy \(warning\)/,
    );
    expect(out).toMatch(/kill the voter node-3 of three-nodes: SecretsRaftFailureToleranceLost \(critical\) pages/);
    expect(out).toMatch(/move the leadership of three-nodes [^:]*: SecretsLeadershipChurn \(warning\)/);
    expect(out).toMatch(/licence of three-nodes within 3 days of its end: SecretsLicenseExpiryCritical \(critical\) pages/);
    expect(out).toMatch(/node-3 of three-nodes behind in an upgrade: SecretsNodeVersionSkew \(warning\)/);
    // A loaded machine may time out a first poll's HA status, which leaves the configured address alone (1) until the next.
    let discovered: string | undefined;
    await waitFor(
      'the three nodes of three-nodes at vigil',
      async () => {
        discovered = /^secrets_nodes_discovered\{target="three-nodes"\} (\d+)$/m.exec(await (await fetch(`${vigil}/metrics`)).text())?.[1];
        return discovered === '3' ? true : undefined;
      },
      60_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}: secrets_nodes_discovered is ${discovered ?? 'absent'}`);
    });
  }, 70_000);

  it("scrapes the upstreams' own telemetry beside vigil with the shipped jobs, and records vigil's node health for the vault-mixin", async () => {
    const query = async (expr: string) =>
      (
        (await (await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as { data: { result: Array<{ value: [number, string] }> } }
      ).data.result.map((r) => r.value[1]);
    await waitFor(
      'the nodes and agents scraped, the health probe recorded',
      async () =>
        (await query('count(up{job="secrets-telemetry"} == 1)')).at(0) === '3' &&
        Number((await query('count(up{job="scheduler-telemetry"} == 1)')).at(0)) >= 2 &&
        (await query('count(vault_health_status_code{target="three-nodes"})')).at(0) === '3'
          ? true
          : undefined,
      60_000,
    );
    expect(await query('vault_core_unsealed{target="three-nodes"}')).toEqual(['1', '1', '1']);
  }, 70_000);

  it('shows the sections the README’s screenshot of it shows (else take it again: scripts/ui-screenshot.ts)', async () => {
    const { sections } = screenshotRecord();
    let shown: string[] = [];
    await waitFor(
      'the page’s sections to be the screenshot’s',
      async () => {
        shown = pageSections(await (await fetch(`${vigil}/`)).text());
        return shown.join() === sections.join() ? true : undefined;
      },
      40_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}: the page shows ${shown.join(', ')}; docs/images/status-page.png shows ${sections.join(', ')}`);
    });
  }, 50_000);

  it('pages a disconnected secondary at the stand-in pager, keeps it in vigil’s history with a working link to Prometheus, and resolves it', async () => {
    const command = /curl -XPOST (\S+\/_sim\/replication\/dr\/secondaries\/dr-secondary\/disconnect)/.exec(out)?.[1];
    expect(command).toBeDefined();
    await fetch(command!, { method: 'POST', body: '{}' });
    type Pages = Array<{ alerts: Array<{ status: string; labels: Record<string, string> }> }>;
    const paged = (status: string) => async () =>
      ((await (await fetch(`${pager}/pages`)).json()) as Pages).some((p) =>
        p.alerts.some((a) => a.status === status && a.labels.alertname === 'SecretsReplicationSecondaryDisconnected' && a.labels.target === 'dr-primary'),
      )
        ? true
        : undefined;
    await waitFor('the page', paged('firing'), 120_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${out.slice(-3000)}`);
    });
    expect(out).toMatch(/\[pager\] PAGE SecretsReplicationSecondaryDisconnected .*target=dr-primary/);

    interface Notification {
      receiver: string;
      payload: { alerts: Array<{ labels: Record<string, string>; generatorURL: string }> };
    }
    const notes = await waitFor(
      'the notification in vigil',
      async () => {
        const body = (await (await fetch(`${vigil}/api/v1/notifications?limit=100`)).json()) as { notifications: Notification[] };
        const n = body.notifications.filter((x) => x.payload.alerts.some((a) => a.labels.alertname === 'SecretsReplicationSecondaryDisconnected'));
        return n.length > 0 ? n : undefined;
      },
      60_000,
    );
    const alert = notes[0]!.payload.alerts.find((a) => a.labels.alertname === 'SecretsReplicationSecondaryDisconnected')!;
    const generator = alert.generatorURL;
    expect(generator.startsWith(`${prometheus}/graph`), generator).toBe(true);
    expect((await fetch(generator)).status).toBe(200);

    await fetch(command!.replace(/disconnect$/, 'connect'), { method: 'POST', body: '{}' });
    await waitFor('the page resolved', paged('resolved'), 120_000);
  }, 250_000);

  it('stops every process it started and removes its temp data on SIGTERM', async () => {
    demo.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(processesUnder(dir)).toEqual([]);
  }, 60_000);
});
