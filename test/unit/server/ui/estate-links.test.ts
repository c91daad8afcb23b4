import { describe, expect, it } from 'vitest';
import { buildEstate } from '../../../../src/server/estate.js';

/** A broken replication link is one problem: the primary's view of it, the secondary's view folded under it. */

const NOW = Date.parse('2026-11-23T10:00:00Z');

/** A DR primary `p` and its secondary `s` (secondary_id `s-id`), both polled; `linked`: vigil links s-id to target s. */
const link = (connected: 0 | 1, linked = true) => `secrets_replication_up{target="p",kind="dr"} 1
secrets_replication_up{target="s",kind="dr"} 1
secrets_sealed{target="p"} 0
secrets_sealed{target="s"} 0
secrets_replication_mode{target="p",kind="dr",mode="primary"} 1
secrets_replication_mode{target="s",kind="dr",mode="secondary"} 1
secrets_replication_secondary_connected{target="p",kind="dr",secondary_id="s-id"} ${connected}
secrets_replication_primary_connected{target="s",kind="dr",primary_cluster_address="https://p:8201"} ${connected}
${linked ? 'secrets_replication_secondary_target_info{target="p",kind="dr",secondary_id="s-id",secondary_target="s"} 1' : ''}
`;

describe('a DR secondary disconnected from its primary, both polled', () => {
  it('is one problem: the primary’s line, the secondary’s view under it', () => {
    const e = buildEstate(link(0), [], NOW);
    expect(e.problems).toBe(1);
    const p = e.secrets.find((c) => c.target === 'p')!;
    expect(p.problems).toEqual(['dr secondary s-id disconnected']);
    expect(p.consequences).toEqual([{ cause: 'dr secondary s-id disconnected', lines: ['s reports its dr primary https://p:8201 not connected'] }]);
    expect(e.secrets.find((c) => c.target === 's')!.problems).toEqual([]);
  });

  it('stays two lines when vigil cannot tell the secondary is that target', () => {
    expect(buildEstate(link(0, false), [], NOW).problems).toBe(2);
  });

  it('is no problem once connected', () => {
    expect(buildEstate(link(1), [], NOW).problems).toBe(0);
  });
});
