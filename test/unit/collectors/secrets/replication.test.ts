import { describe, expect, it } from 'vitest';
import { replicationFamilies } from '../../../../src/collectors/secrets/replication-status.js';
import { renderGroup } from '../../../../src/metrics/render.js';
import { parseBody } from '../../../../src/upstream/parse.js';
import { replicationStatusResponse, type ReplicationStatus } from '../../../../src/collectors/secrets/replication-status.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { fixture } from '../../../helpers/fixtures.js';
import { parseExposition, series, seriesOf } from '../../../helpers/exposition.js';
import { thrown } from '../../../helpers/throws.js';

const parse = (body: unknown) => parseBody(replicationStatusResponse, body, 'dr/status').data;
const samples = (s: ReplicationStatus, kind = 'dr') => parseExposition([...renderGroup(replicationFamilies, s, { target: 't1', kind }).values()].join(''));
const L = (extra: Record<string, string> = {}) => ({ target: 't1', kind: 'dr', ...extra });
const epoch = (iso: string) => Date.parse(iso) / 1000;

describe('GET sys/replication/dr/status on a primary', () => {
  const s = samples(parse(fixture('secrets/dr-primary.json')));

  it('exports the mode as a state set over the known modes', () => {
    expect(s.get(series('secrets_replication_mode', L({ mode: 'primary' })))).toBe(1);
    expect(s.get(series('secrets_replication_mode', L({ mode: 'secondary' })))).toBe(0);
    expect(s.get(series('secrets_replication_mode', L({ mode: 'disabled' })))).toBe(0);
    expect(seriesOf(s, 'secrets_replication_mode').size).toBe(6);
  });

  it('exports identity as an info metric', () => {
    expect(s.get(series('secrets_replication_info', L({ cluster_id: 'd4095d41-3aee-8791-c421-9bc7f88f7c3e', mode: 'primary' })))).toBe(1);
  });

  it('marks every known secondary connected or not; one missing from secondaries[] is 0', () => {
    expect(s.get(series('secrets_replication_secondary_connected', L({ secondary_id: 'dr-secondary-a' })))).toBe(1);
    expect(s.get(series('secrets_replication_secondary_connected', L({ secondary_id: 'dr-secondary-b' })))).toBe(0);
    expect(s.get(series('secrets_replication_secondary_connected', L({ secondary_id: 'dr-secondary-c' })))).toBe(0);
    expect(s.get(series('secrets_replication_known_secondaries', L()))).toBe(3);
  });

  it('reads heartbeats as Unix seconds', () => {
    expect(s.get(series('secrets_replication_secondary_last_heartbeat_timestamp_seconds', L({ secondary_id: 'dr-secondary-a' })))).toBe(
      epoch('2026-11-22T10:00:00Z'),
    );
    expect(s.get(series('secrets_replication_secondary_last_heartbeat_timestamp_seconds', L({ secondary_id: 'dr-secondary-b' })))).toBe(
      epoch('2026-11-22T09:58:20Z'),
    );
  });

  it('exports last_wal and the corruption flag, and no secondary-only series', () => {
    expect(s.get(series('secrets_replication_last_wal', L()))).toBe(241);
    expect(s.get(series('secrets_replication_merkle_tree_corrupted', L()))).toBe(0);
    expect(seriesOf(s, 'secrets_replication_last_remote_wal').size).toBe(0);
    expect(seriesOf(s, 'secrets_replication_primary_connected').size).toBe(0);
  });

  it('treats the zero-time epoch "-62135596800" as never checked: the timestamp is absent', () => {
    expect(seriesOf(s, 'secrets_replication_last_corruption_check_timestamp_seconds').size).toBe(0);
  });

  it('exports the state set with the current state, here "running"', () => {
    expect(s.get(series('secrets_replication_state', L({ state: 'running' })))).toBe(1);
    expect(s.get(series('secrets_replication_state', L({ state: 'stream-wals' })))).toBe(0);
  });
});

describe('GET sys/replication/dr/status on a secondary', () => {
  const s = samples(parse(fixture('secrets/dr-secondary.json')));

  it('reads numbers and booleans sent as strings', () => {
    expect(s.get(series('secrets_replication_last_remote_wal', L()))).toBe(229);
    expect(s.get(series('secrets_replication_merkle_tree_corrupted', L()))).toBe(1);
  });

  it('reports its view of each primary and the heartbeat', () => {
    const addr = { primary_cluster_address: 'https://10.0.0.1:8201' };
    expect(s.get(series('secrets_replication_primary_connected', L(addr)))).toBe(1);
    expect(s.get(series('secrets_replication_primary_last_heartbeat_timestamp_seconds', L(addr)))).toBe(epoch('2026-11-22T10:00:05Z'));
  });

  it('reads last_corruption_check_epoch given as epoch seconds', () => {
    expect(s.get(series('secrets_replication_last_corruption_check_timestamp_seconds', L()))).toBe(1795340000);
  });

  it('exports no primary-only series', () => {
    expect(seriesOf(s, 'secrets_replication_last_wal').size).toBe(0);
    expect(seriesOf(s, 'secrets_replication_secondary_connected').size).toBe(0);
    expect(seriesOf(s, 'secrets_replication_known_secondaries').size).toBe(0);
  });
});

describe('disabled replication', () => {
  it('exports mode=disabled and info, and nothing that needs a role', () => {
    const s = samples(parse(fixture('secrets/disabled.json')));
    expect(s.get(series('secrets_replication_mode', L({ mode: 'disabled' })))).toBe(1);
    expect(s.get(series('secrets_replication_info', L({ cluster_id: '', mode: 'disabled' })))).toBe(1);
    expect(seriesOf(s, 'secrets_replication_state').size).toBe(0);
    expect(seriesOf(s, 'secrets_replication_last_wal').size).toBe(0);
  });
});

describe('variations real servers show', () => {
  it('parses an older primary that omits state: no state series at all', () => {
    const s = samples(parse(fixture('secrets/older-primary-no-state.json')));
    expect(seriesOf(s, 'secrets_replication_state').size).toBe(0);
    expect(s.get(series('secrets_replication_last_wal', L()))).toBe(12);
    expect(s.get(series('secrets_replication_known_secondaries', L()))).toBe(0);
  });

  it('exports an unknown state as-is, next to the known ones', () => {
    const s = samples(parse({ data: { mode: 'secondary', state: 'catching-up', secondary_id: 'x' } }));
    expect(s.get(series('secrets_replication_state', L({ state: 'catching-up' })))).toBe(1);
    expect(s.get(series('secrets_replication_state', L({ state: 'stream-wals' })))).toBe(0);
    expect(seriesOf(s, 'secrets_replication_state').size).toBe(10);
  });

  it.each(['bootstrapping', 'unknown', 'unsupported', 'dr-secondary-promoting'])('accepts mode %s', (mode) => {
    const s = samples(parse({ data: { mode } }));
    expect(s.get(series('secrets_replication_mode', L({ mode })))).toBe(1);
  });

  it.each(['merkle-diff', 'merkle-sync', 'idle', 'connecting', 'ready', 'transient_failure', 'shutdown'])('accepts state %s', (state) => {
    const s = samples(parse({ data: { mode: 'secondary', state } }));
    expect(s.get(series('secrets_replication_state', L({ state })))).toBe(1);
    expect(seriesOf(s, 'secrets_replication_state').size).toBe(9);
  });

  it('treats a zero-time heartbeat as absent', () => {
    const s = samples(
      parse({
        data: {
          mode: 'primary',
          known_secondaries: ['a'],
          secondaries: [{ node_id: 'a', connection_status: 'connected', last_heartbeat: '0001-01-01T00:00:00Z' }],
        },
      }),
    );
    expect(seriesOf(s, 'secrets_replication_secondary_last_heartbeat_timestamp_seconds').size).toBe(0);
    expect(s.get(series('secrets_replication_secondary_connected', L({ secondary_id: 'a' })))).toBe(1);
  });
});

describe('fields that cannot be read cost only their own series', () => {
  it('last_wal not a number: no last_wal, the rest read', () => {
    const s = parse({ data: { mode: 'primary', last_wal: 'many', known_secondaries: ['a'] } });
    expect(s.last_wal).toBeUndefined();
    expect(s.known_secondaries).toEqual(['a']);
  });
  it('secondaries not a list: connections not reported (no page)', () => {
    expect(parse({ data: { mode: 'primary', secondaries: 'a,b' } }).secondaries).toBeUndefined();
  });
  it('heartbeat not a time: that heartbeat only', () => {
    const s = parse({ data: { mode: 'primary', secondaries: [{ node_id: 'a', connection_status: 'connected', last_heartbeat: 'yesterday' }] } });
    expect(s.secondaries?.[0]?.last_heartbeat).toBeUndefined();
    expect(s.secondaries?.[0]?.connection_status).toBe('connected');
  });
});

describe('responses that do not fit', () => {
  it.each([
    ['no data', {}, 'data'],
    ['data without mode', { data: { cluster_id: 'x' } }, 'data.mode'],
  ])('%s is a schema failure naming the field', (_name, body, field) => {
    const err = thrown(UpstreamError, () => parse(body));
    expect(err.reason).toBe('schema');
    expect(err.message).toContain(field);
  });
});
