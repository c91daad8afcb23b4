import { describe, expect, it } from 'vitest';
import { hostFamilies } from '../../../src/collectors/agent/host.js';
import { selfFamilies } from '../../../src/collectors/agent/self.js';
import { merkleFamilies } from '../../../src/collectors/secrets/merkle-check.js';
import { replicationFamilies } from '../../../src/collectors/secrets/replication-status.js';
import { agentHostResponse } from '../../../src/collectors/agent/host.js';
import { agentSelfResponse } from '../../../src/collectors/agent/self.js';
import { parseBody } from '../../../src/upstream/parse.js';
import { merkleCheckResponse } from '../../../src/collectors/secrets/merkle-check.js';
import { replicationStatusResponse } from '../../../src/collectors/secrets/replication-status.js';
import { series, seriesOf } from '../../helpers/exposition.js';
import { realAnswer } from '../../helpers/real-corpus.js';
import { renderSamples } from '../../helpers/render.js';

/** Bodies of the corpus of real answers (each file says where it comes from). */
const real = (name: string) => realAnswer(name).body;
const DR = { target: 't', kind: 'dr' };

describe('a primary before 1.5: known_secondaries and no secondaries list', () => {
  const s = renderSamples(
    replicationFamilies,
    parseBody(replicationStatusResponse, real('secrets/dr-primary-1.5-without-secondaries.json'), 'dr/status').data,
    DR,
  );

  it('exports no connection series at all: unknown is not disconnected, so no page', () => {
    expect(seriesOf(s, 'secrets_replication_secondary_connected').size).toBe(0);
  });

  it('says the connections are not reported, and still counts the known secondaries', () => {
    expect(s.get(series('secrets_replication_secondaries_reported', DR))).toBe(0);
    expect(s.get(series('secrets_replication_known_secondaries', DR))).toBe(1);
    expect(s.get(series('secrets_replication_last_wal', DR))).toBe(241);
  });
});

describe('a current primary (1.16+ fields)', () => {
  const s = renderSamples(replicationFamilies, parseBody(replicationStatusResponse, real('secrets/dr-primary-current.json'), 'dr/status').data, DR);
  const SEC = { ...DR, secondary_id: '4ca6b639-046b-5bb1-8043-6788ddf09121' };

  it('reports the connection of its one secondary', () => {
    expect(s.get(series('secrets_replication_secondaries_reported', DR))).toBe(1);
    expect(s.get(series('secrets_replication_secondary_connected', SEC))).toBe(1);
    expect(s.get(series('secrets_replication_secondary_last_heartbeat_timestamp_seconds', SEC))).toBe(Date.parse('2024-03-04T10:05:56-05:00') / 1000);
  });

  it('exports the canary age, clock skew and heartbeat duration in seconds', () => {
    expect(s.get(series('secrets_replication_secondary_primary_canary_age_seconds', SEC))).toBe(0.696);
    expect(s.get(series('secrets_replication_secondary_clock_skew_seconds', SEC))).toBe(0);
    expect(s.get(series('secrets_replication_secondary_last_heartbeat_duration_seconds', SEC))).toBe(0);
  });

  it('leaves a reindex that never happened (0) and the zero-time corruption check absent', () => {
    expect(seriesOf(s, 'secrets_replication_last_reindex_timestamp_seconds').size).toBe(0);
    expect(seriesOf(s, 'secrets_replication_last_corruption_check_timestamp_seconds').size).toBe(0);
  });
});

describe('a null secondaries list is reported, none connected', () => {
  const body = { data: { mode: 'primary', cluster_id: 'c', known_secondaries: ['dr-1'], secondaries: null } };
  const s = renderSamples(replicationFamilies, parseBody(replicationStatusResponse, body, 'dr/status').data, DR);
  it('marks the known secondary disconnected', () => {
    expect(s.get(series('secrets_replication_secondaries_reported', DR))).toBe(1);
    expect(s.get(series('secrets_replication_secondary_connected', { ...DR, secondary_id: 'dr-1' }))).toBe(0);
  });
});

describe('a merkle report whose only corruption is a subpage', () => {
  const report = parseBody(merkleCheckResponse, real('secrets/merkle-check-current.json'), 'merkle-check').data.merkle_corruption_report;
  const s = renderSamples(merkleFamilies, report, { target: 't' });
  const TREE = { target: 't', tree: '1', tree_type: 'replicated' };

  it('counts the corrupted subpage and the tree as corrupted, though no page is marked', () => {
    expect(s.get(series('secrets_merkle_corrupted_subpages', TREE))).toBe(1);
    expect(s.get(series('secrets_merkle_corrupted_pages', TREE))).toBe(0);
    expect(s.get(series('secrets_merkle_corrupted_trees', { target: 't', tree_type: 'replicated' }))).toBe(1);
  });
});

describe('GET /v1/agent/host answered locally, without the envelope', () => {
  const s = renderSamples(hostFamilies, parseBody(agentHostResponse, real('agent/host-local-latest.json'), 'agent/host'), { target: 'a' });
  it('reads the disks', () => {
    expect(s.get(series('scheduler_agent_host_disk_size_bytes', { target: 'a', mount: '/' }))).toBe(7876 * 1024 * 1024);
    expect(s.get(series('scheduler_agent_host_disk_used_bytes', { target: 'a', mount: '/' }))).toBe(4287 * 1024 * 1024);
  });
});

describe('GET /v1/agent/self of an older server missing stats', () => {
  const s = renderSamples(selfFamilies, parseBody(agentSelfResponse, real('agent/self-server-without-health-score.json'), 'agent/self'), { target: 'a' });
  const A = { target: 'a' };
  it('keeps every series a present stat feeds', () => {
    expect(s.get(series('scheduler_agent_raft_commit_index', A))).toBe(144);
    expect(s.get(series('scheduler_agent_serf_members', A))).toBe(3);
  });
  it('drops only the series of the missing stats', () => {
    for (const name of ['scheduler_agent_serf_health_score', 'scheduler_agent_raft_last_contact_seconds', 'scheduler_agent_runtime_goroutines']) {
      expect(seriesOf(s, name).size, name).toBe(0);
    }
  });
});
