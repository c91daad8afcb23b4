import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { tempFile } from '../helpers/daemon.js';
import { startVigil, type VigilProcess } from '../helpers/process.js';
import { deployedAlertmanager, deployedPrometheus, writeScaledRules } from '../helpers/shipped-alerting.js';
import { freePort, startAlertmanager, startPrometheus, type Service } from '../helpers/processes.js';
import { notified, standIn } from '../helpers/stand-in-receiver.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The owners team losing its members, end to end as paging.test.ts drives its faults: the teams
 * simulator's organization with its owners team, one vigil, the shipped rules (every `for:` divided
 * by ten) in a real Prometheus and the shipped routing in a real Alertmanager, a stand-in pager.
 */
const FACTOR = 10;
const OWNERS = 5;

let teams: TeamsSimulator;
let vigil: VigilProcess;
let prometheus: Service;
let alertmanager: Service;
const pager = standIn();
/** Where the routing sends everything (vigil's alert sink in a deployment): what pages nobody lands here only. */
const sink = standIn();

const query = async (expr: string): Promise<string[]> => {
  const body = (await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as {
    data: { result: Array<{ value: [number, string] }> };
  };
  return body.data.result.map((r) => r.value[1]);
};

const state = async () =>
  `\nprometheus alerts: ${(await (await fetch(`${prometheus.url}/api/v1/alerts`)).text()).slice(0, 2000)}\nvigil: ${vigil.output().slice(-1500)}`;

beforeAll(async () => {
  teams = await startTeamsSimulator({ organizations: [{ name: 'acme', teams: 8, seed: 9, owners: OWNERS }] });
  for (const s of [pager.server, sink.server]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const token = tempFile('teams-token', teams.ownerToken('acme'));
  const config = `teams:\n  - { name: acme, address: "${teams.url}", organization: acme, token_file: ${token}, schedule: "*/2 * * * * *", requests_per_second: 100 }\n`;
  const port = await freePort();
  vigil = startVigil([`--config.file=${tempFile('vigil.yml', config)}`, `--web.listen-address=127.0.0.1:${port}`, '--log.format=json', '--log.level=warn']);
  await waitFor('vigil ready', async () => ((await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok ? true : undefined), 60_000);
  alertmanager = await startAlertmanager(
    deployedAlertmanager({ urls: { vigil: sink.url(), pager: pager.url(), heartbeat: sink.url() }, tokenFile: tempFile('am-token', 'unused'), factor: FACTOR }),
  );
  const rules = writeScaledRules(tempDir('vigil-e2e-owners-rules-'), FACTOR);
  prometheus = await startPrometheus(
    deployedPrometheus({ targets: [`127.0.0.1:${port}`], ruleGlob: rules, alertmanager: new URL(alertmanager.url).host, interval: '1s' }),
    ['--rules.alert.resend-delay=2s'],
  );
}, 180_000);

afterAll(async () => {
  // Nothing is evaluated or routed any more before what they watch goes.
  await Promise.all([prometheus?.stop(), alertmanager?.stop()]);
  const receivers = [pager, sink].map(({ server }) => new Promise((r) => server.close(r)));
  await Promise.all([vigil?.stop(), teams?.close(), ...receivers]);
}, 60_000);

describe('the owners team', () => {
  it('pages TeamsOwnersDropped when it loses its members, through the shipped rules and routing', async () => {
    // The rule compares with the largest count of the last hour sampled each minute: wait for a
    // minute boundary at which Prometheus had the whole team.
    const peak = 'max_over_time(max by (target, organization) (teams_owners_team_users{target="acme"})[1h:1m])';
    await waitFor('a minute boundary with the whole owners team', async () => ((await query(peak))[0] === String(OWNERS) ? true : undefined), 150_000, {
      describeFailure: state,
    });
    expect(notified(pager.posts, 'TeamsOwnersDropped')).toBe(false);
    const res = await fetch(`${teams.url}/_sim/team-users`, { method: 'POST', body: JSON.stringify({ organization: 'acme', team: 'owners', count: 0 }) });
    expect(res.status).toBe(200);
    await waitFor(
      'TeamsOwnersDropped at the pager',
      async () => (notified(pager.posts, 'TeamsOwnersDropped', { target: 'acme' }) ? true : undefined),
      150_000,
      {
        describeFailure: state,
      },
    );
    const alert = pager.posts.flatMap((p) => p.alerts).find((a) => a.labels.alertname === 'TeamsOwnersDropped');
    expect(alert?.labels).toMatchObject({ severity: 'critical', organization: 'acme' });
  }, 330_000);
});
