import { describe, expect, it } from 'vitest';
import { buildEstate } from '../../../../src/server/estate.js';
import { renderEstate } from '../../../../src/server/ui/estate-view.js';

/** A secrets cluster's automated snapshots on the estate page: each configuration's last success, and problems at the alerts' thresholds. */

const NOW = Date.parse('2026-11-23T10:00:00Z');
const S = NOW / 1000;
const EVIL = '<img src=x onerror=alert(1)>';

const SNAPSHOT = `secrets_replication_up{target="c1",kind="dr"} 1
secrets_sealed{target="c1"} 0
secrets_raft_snapshot_up{target="c1",name="hourly"} 1
secrets_raft_snapshot_last_success_timestamp_seconds{target="c1",name="hourly"} ${S - 3 * 3600}
secrets_raft_snapshot_consecutive_errors{target="c1",name="hourly"} 3
secrets_raft_snapshot_up{target="c1",name="daily"} 1
secrets_raft_snapshot_last_success_timestamp_seconds{target="c1",name="daily"} ${S - 26 * 3600}
secrets_raft_snapshot_consecutive_errors{target="c1",name="daily"} 0
secrets_raft_snapshot_up{target="c1",name="${EVIL}"} 1
secrets_raft_snapshot_last_success_timestamp_seconds{target="c1",name="${EVIL}"} ${S - 600}
secrets_raft_snapshot_consecutive_errors{target="c1",name="${EVIL}"} 1
secrets_replication_up{target="plain",kind="dr"} 1
secrets_sealed{target="plain"} 0
`;

describe('the automated snapshots of a secrets cluster', () => {
  const e = buildEstate(SNAPSHOT, [], NOW);
  const c1 = e.secrets.find((c) => c.target === 'c1')!;

  it('reads each configuration: its last success and its attempts failed in a row', () => {
    expect(c1.snapshots).toEqual([
      { name: EVIL, up: true, lastSuccessAgeSeconds: 600, consecutiveErrors: 1 },
      { name: 'daily', up: true, lastSuccessAgeSeconds: 26 * 3600, consecutiveErrors: 0 },
      { name: 'hourly', up: true, lastSuccessAgeSeconds: 3 * 3600, consecutiveErrors: 3 },
    ]);
    expect(e.secrets.find((c) => c.target === 'plain')!.snapshots).toEqual([]);
  });

  it('names a snapshot failing 3 times, and one without a success for 25 hours, as problems; one failure is not yet', () => {
    expect(c1.problems).toEqual(['snapshot daily last succeeded 26 hours ago', 'snapshot hourly failing: its last 3 attempts failed']);
  });

  it('shows each on the card, every name as text', () => {
    const html = renderEstate(e, { now: NOW });
    expect(html).not.toContain('<img');
    expect(html).toContain('<code>&#60;img src=x onerror=alert(1)&#62;</code> <span class="badge warn">last success 10 min ago, 1 failed in a row</span>');
    expect(html).toContain('<code>hourly</code> <span class="badge bad">last success 3.0 h ago, 3 failed in a row</span>');
    expect(html).toContain('<code>daily</code> <span class="badge warn">last success 26.0 h ago</span>');
  });
});
