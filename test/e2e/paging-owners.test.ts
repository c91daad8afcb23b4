import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';
import { startAlertingStack, type AlertingStack } from '../helpers/alerting-stack.js';
import { tempFile } from '../helpers/daemon.js';
import { notified } from '../helpers/stand-in-receiver.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The owners team losing its members, end to end as paging.test.ts drives its faults: the teams
 * simulator's organization with its owners team, one vigil, the shipped rules and routing in a
 * real Prometheus and Alertmanager, a stand-in pager.
 */
const OWNERS = 5;

let teams: TeamsSimulator;
let stack: AlertingStack;

beforeAll(async () => {
  teams = await startTeamsSimulator({ organizations: [{ name: 'acme', teams: 8, seed: 9, owners: OWNERS }] });
  const token = tempFile('teams-token', teams.ownerToken('acme'));
  stack = await startAlertingStack(
    `teams:\n  - { name: acme, address: "${teams.url}", organization: acme, token_file: ${token}, schedule: "*/2 * * * * *", requests_per_second: 100 }\n`,
  );
}, 180_000);

afterAll(() => Promise.all([stack?.stop(), teams?.close()]), 60_000);

describe('the owners team', () => {
  it('pages TeamsOwnersDropped when it loses its members, through the shipped rules and routing', async () => {
    // The rule compares with the largest count of the last hour sampled each minute: wait for a
    // minute boundary at which Prometheus had the whole team.
    const peak = 'max_over_time(max by (target, organization) (teams_owners_team_users{target="acme"})[1h:1m])';
    await waitFor('a minute boundary with the whole owners team', async () => ((await stack.query(peak))[0] === String(OWNERS) ? true : undefined), 150_000, {
      describeFailure: stack.state,
    });
    expect(notified(stack.pager, 'TeamsOwnersDropped')).toBe(false);
    const res = await fetch(`${teams.url}/_sim/team-users`, { method: 'POST', body: JSON.stringify({ organization: 'acme', team: 'owners', count: 0 }) });
    expect(res.status).toBe(200);
    await waitFor(
      'TeamsOwnersDropped at the pager',
      async () => (notified(stack.pager, 'TeamsOwnersDropped', { target: 'acme' }) ? true : undefined),
      150_000,
      {
        describeFailure: stack.state,
      },
    );
    const alert = stack.pager.flatMap((p) => p.alerts).find((a) => a.labels.alertname === 'TeamsOwnersDropped');
    expect(alert?.labels).toMatchObject({ severity: 'critical', organization: 'acme' });
  }, 330_000);
});
