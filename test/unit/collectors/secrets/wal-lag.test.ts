import { describe, expect, it } from 'vitest';
import { WalLagTracker, walLagPairs } from '../../../../src/collectors/secrets/wal-lag.js';
import { replicationStatusData, type ReplicationStatus } from '../../../../src/collectors/secrets/replication-status.js';

const st = (o: Record<string, unknown>): ReplicationStatus => replicationStatusData.parse(o);
const primary = st({ mode: 'primary', last_wal: 500, known_secondaries: ['sec-a', 'sec-b'] });
const secA = st({ mode: 'secondary', secondary_id: 'sec-a', last_remote_wal: 470 });
const secB = st({ mode: 'secondary', secondary_id: 'sec-b', last_remote_wal: 500 });
const stranger = st({ mode: 'secondary', secondary_id: 'other', last_remote_wal: 1 });

describe('secrets_replication_wal_lag_entries', () => {
  it('is primary last_wal minus each known secondary last_remote_wal, matched by secondary_id', () => {
    const pairs = walLagPairs([
      { target: 'p', kind: 'dr', status: primary },
      { target: 'a', kind: 'dr', status: secA },
      { target: 'b', kind: 'dr', status: secB },
      { target: 'x', kind: 'dr', status: stranger },
    ]);
    expect(pairs).toEqual([
      { kind: 'dr', primary: 'p', secondary: 'a', lag: 30 },
      { kind: 'dr', primary: 'p', secondary: 'b', lag: 0 },
    ]);
  });

  it('never pairs across replication kinds', () => {
    expect(
      walLagPairs([
        { target: 'p', kind: 'dr', status: primary },
        { target: 'a', kind: 'performance', status: secA },
      ]),
    ).toEqual([]);
  });

  it('forgets a target whose poll failed', () => {
    const t = new WalLagTracker();
    t.set('p', 'dr', primary);
    t.set('a', 'dr', secA);
    expect(t.pairs()).toHaveLength(1);
    t.set('a', 'dr', undefined);
    expect(t.pairs()).toHaveLength(0);
  });
});
