import { describe, expect, it } from 'vitest';
import type { TargetView } from '../../../../src/daemon.js';
import { buildEstate } from '../../../../src/server/estate.js';
import { renderEstate } from '../../../../src/server/ui/estate-view.js';

/** The estate view from what /metrics holds: topology, agents, organizations, targets, problems first. */

const NOW = Date.parse('2026-11-23T10:00:00Z');
const nowS = NOW / 1000;

const SNAPSHOT = `# HELP secrets_replication_up x
# TYPE secrets_replication_up gauge
secrets_replication_up{target="dr-primary",kind="dr"} 1
secrets_replication_mode{target="dr-primary",kind="dr",mode="primary"} 1
secrets_replication_mode{target="dr-primary",kind="dr",mode="disabled"} 0
secrets_replication_mode{target="dr-primary",kind="performance",mode="disabled"} 1
secrets_replication_state{target="dr-primary",kind="dr",state="running"} 1
secrets_replication_merkle_tree_corrupted{target="dr-primary",kind="dr"} 0
secrets_replication_secondary_connected{target="dr-primary",kind="dr",secondary_id="east"} 1
secrets_replication_secondary_connected{target="dr-primary",kind="dr",secondary_id="west<script>"} 0
secrets_replication_secondary_last_heartbeat_timestamp_seconds{target="dr-primary",kind="dr",secondary_id="east"} ${nowS - 4}
secrets_replication_wal_lag_entries{kind="dr",primary="dr-primary",secondary="east"} 12
secrets_sealed{target="dr-primary"} 0
scheduler_agent_up{target="server-1"} 1
scheduler_agent_info{target="server-1",name="s1",region="r",datacenter="d",version="1",server="true"} 1
scheduler_agent_health_ok{target="server-1",role="server"} 1
scheduler_agent_health_ok{target="server-1",role="client"} 0
scheduler_agent_members{target="server-1",status="alive"} 2
scheduler_agent_members{target="server-1",status="failed"} 1
scheduler_agent_member_status{target="server-1",member="m-2",status="failed"} 1
scheduler_agent_member_status{target="server-1",member="m-1",status="failed"} 0
scheduler_agent_known_servers{target="server-1"} 1
scheduler_agent_raft_leader_known{target="server-1"} 1
scheduler_agent_up{target="client-1"} 1
scheduler_agent_health_ok{target="client-1",role="client"} 1
teams_up{target="acme",organization="acme"} 1
teams_organization_teams{target="acme",organization="acme",visibility="secret"} 2
teams_organization_teams{target="acme",organization="acme",visibility="organization"} 3
teams_team_access_inconsistent{target="acme",organization="acme",team="ops",rule="manage_members_without_read"} 1
vigil_alertsink_watchdog_healthy 0
vigil_alertsink_rejected_total{reason="auth"} 3
vigil_alertsink_rejected_total{reason="json"} 0
`;

const target = (t: Partial<TargetView>): TargetView => ({
  collector: 'secrets',
  target: 'x',
  schedule: '*/5 * * * * *',
  up: true,
  runs: 1,
  lastRun: null,
  lastSuccess: '2026-11-23T09:59:55Z',
  lastDurationSeconds: 0.01,
  lastError: null,
  ...t,
});
const TARGETS = [
  target({ target: 'dr-primary' }),
  target({
    collector: 'agents',
    target: 'gone',
    up: false,
    lastSuccess: '2026-11-23T09:50:00Z',
    lastError: { reason: 'connect', part: 'health', message: 'ECONNREFUSED "<b>"' },
  }),
];

describe('buildEstate', () => {
  const e = buildEstate(SNAPSHOT, TARGETS, NOW);

  it('reads the topology of each enabled kind: secondaries with connection, heartbeat age and WAL lag', () => {
    expect(e.secrets[0]!.kinds).toEqual([
      {
        kind: 'dr',
        mode: 'primary',
        state: 'running',
        up: true,
        merkleCorrupted: false,
        primary: null,
        secondaries: [
          { id: 'east', connected: true, heartbeatAgeSeconds: 4, walLag: 12 },
          { id: 'west<script>', connected: false, heartbeatAgeSeconds: null, walLag: null },
        ],
      },
    ]);
    expect(e.secrets[0]!.problems).toEqual(['dr secondary west<script> disconnected']);
  });

  it('names failed members and unhealthy roles, and puts the agent with problems first', () => {
    expect(e.agents.map((a) => a.target)).toEqual(['server-1', 'client-1']);
    expect(e.agents[0]).toMatchObject({
      server: true,
      failedMembers: ['m-2'],
      members: { alive: 2, failed: 1 },
      knownServers: 1,
      raftLeader: true,
      problems: ['client unhealthy', '1 failed member'],
    });
    expect(e.agents[1]!.problems).toEqual([]);
  });

  it('counts teams over visibilities and lists access breaches', () => {
    expect(e.organizations).toEqual([
      {
        target: 'acme',
        organization: 'acme',
        up: true,
        teams: 5,
        breaches: [{ team: 'ops', rule: 'manage_members_without_read' }],
        problems: ['team ops breaks manage_members_without_read'],
      },
    ]);
  });

  it('sorts down targets first and counts every problem, the broken alert path included', () => {
    expect(e.targets.map((t) => t.target)).toEqual(['gone', 'dr-primary']);
    expect(e.alertPath).toMatchObject({ watchdogHealthy: false, rejected: { auth: 3, json: 0 } });
    expect(e.problems).toBe(1 + 2 + 1 + 1 + 1);
  });

  it('shows nothing for an empty snapshot rather than failing', () => {
    const empty = buildEstate('', [], NOW);
    expect(empty).toMatchObject({ problems: 0, secrets: [], agents: [], organizations: [], alertPath: { watchdogHealthy: null, watchdogLastSeen: null } });
  });
});

describe('renderEstate', () => {
  const html = renderEstate(buildEstate(SNAPSHOT, TARGETS, NOW), { now: NOW });

  it('says which shard this replica polls when the targets are split, and nothing when they are not', () => {
    const sharded =
      'vigil_shard_ordinal 1\nvigil_total_shards 3\nvigil_shard_targets{shard="0"} 9\nvigil_shard_targets{shard="1"} 11\nvigil_shard_targets{shard="2"} 10\n';
    const e = buildEstate(sharded, [], NOW);
    expect(e.shard).toEqual({ ordinal: 1, total: 3, polled: 11, configured: 30 });
    expect(renderEstate(e, { now: NOW })).toContain('this vigil polls shard 1 of 3: 11 of the 30 configured targets');
    const single = buildEstate('vigil_shard_ordinal 0\nvigil_total_shards 1\nvigil_shard_targets{shard="0"} 30\n', [], NOW);
    expect(single.shard).toBeNull();
    expect(renderEstate(single, { now: NOW })).not.toContain('shard');
  });

  it('says the alert path waits for its first Watchdog rather than calling it healthy', () => {
    const waiting = renderEstate(buildEstate('vigil_alertsink_watchdog_healthy 1\n', [], NOW), { now: NOW });
    expect(waiting).toContain('waiting for the first Watchdog');
    expect(waiting).not.toContain('alert path healthy');
    const seen = renderEstate(buildEstate('vigil_alertsink_watchdog_healthy 1\nvigil_alertsink_watchdog_last_seen_timestamp_seconds 1.7e9\n', [], NOW), {
      now: NOW,
    });
    expect(seen).toContain('alert path healthy');
  });

  it('opens with the problems, each named', () => {
    const head = html.slice(0, html.indexOf('</div>'));
    expect(head).toContain('problems</h2>');
    expect(head).toContain('6 problems');
    for (const p of ['alert path broken', 'west&#60;script&#62; disconnected', 'client unhealthy', 'team ops breaks', 'gone: agents down (connect)'])
      expect(head).toContain(p);
  });

  it('shows upstream strings as text only', () => {
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>');
    expect(html).toContain('ECONNREFUSED &#34;&#60;b&#62;&#34;');
  });

  it('names the failed member, the heartbeat age and the WAL lag', () => {
    expect(html).toContain('<li><strong>m-2</strong></li>');
    expect(html).toMatch(/→ east<\/td><td><span class="badge ok">connected<\/span><\/td><td>4 s ago<\/td><td>12<\/td>/);
    expect(html).toContain('<span class="badge bad">alert path BROKEN</span>');
    expect(html).toContain('rejected posts: auth 3');
  });

  it('keeps healthy targets compact and shows a down one with its reason and last success', () => {
    expect(html).toMatch(
      /<tr class="row-bad"><th scope="row">gone<\/th><td>agents<\/td><td><span class="badge bad">down<\/span><\/td><td><strong>connect<\/strong> health: /,
    );
    expect(html).toContain('10 min ago');
    expect(html).toContain('<summary>1 of 2 up</summary>');
  });

  it('says all clear when nothing is wrong', () => {
    expect(renderEstate(buildEstate('', [target({})], NOW), { now: NOW })).toContain('All clear');
  });
});

describe('the problems summary', () => {
  it('shows the first few problems of one thing and links to the rest', () => {
    const breaches = Array.from({ length: 10 }, (_, i) => `teams_team_access_inconsistent{target="acme",organization="acme",team="t${i}",rule="r"} 1`).join(
      '\n',
    );
    const html = renderEstate(buildEstate(`teams_up{target="acme",organization="acme"} 1\n${breaches}\n`, [], NOW), { now: NOW });
    const head = html.slice(0, html.indexOf('</div>'));
    expect(head).toContain('10 problems');
    expect(head.match(/<li>/g)).toHaveLength(4);
    expect(head).toContain('team t2 breaks r');
    expect(head).not.toContain('team t3 breaks r');
    expect(head).toContain('<a href="#orgs">7 more</a>');
    // All of them are still listed where the organization is, the first five open, the rest folded.
    const card = html.slice(html.indexOf('id="orgs"'));
    expect(card).toContain('t9: r');
    expect(card).toContain('Access-consistency breaches: 10');
    expect(card.slice(0, card.indexOf('<details'))).toContain('t4: r');
    expect(card.slice(0, card.indexOf('<details'))).not.toContain('t5: r');
    expect(card).toMatch(/<details class="fold"><summary>5 more<\/summary><ul class="problems"><li>t5: r<\/li>/);
  });

  it('shows one root cause as one line, with what it causes under it', () => {
    const sealed =
      'secrets_sealed{target="vault-b"} 1\nsecrets_replication_up{target="vault-b",kind="performance"} 0\nsecrets_replication_up{target="vault-b",kind="dr"} 0\n';
    const down = [target({ collector: 'secrets_replication', target: 'vault-b', up: false, lastError: { reason: 'sealed', part: 'dr', message: 'sealed' } })];
    const e = buildEstate(sealed, down, NOW);
    expect(e.problems).toBe(1);
    expect(e.secrets[0]!.problems).toEqual(['sealed (so its performance and dr replication status cannot be read)']);
    const html = renderEstate(e, { now: NOW });
    const head = html.slice(0, html.indexOf('</div>'));
    expect(head).toContain('1 problem<');
    expect(head).toContain(
      '<li><strong>vault-b</strong>: sealed (so its performance and dr replication status cannot be read)<ul class="consequences"><li>secrets_replication collection down (sealed)</li></ul></li>',
    );
    expect(head.match(/vault-b/g)).toHaveLength(1);
  });

  it('still names a target down on its own when nothing else explains it', () => {
    const e = buildEstate('', [target({ collector: 'teams', target: 'lonely', up: false, lastError: { reason: 'timeout', part: 'list', message: 't' } })], NOW);
    expect(e.problems).toBe(1);
    expect(renderEstate(e, { now: NOW })).toContain('<li>lonely: teams down (timeout)</li>');
  });
});
