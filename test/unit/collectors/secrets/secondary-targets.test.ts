import { describe, expect, it } from 'vitest';
import { SECONDARY_TARGETS_GROUP, SecretsState } from '../../../../src/collectors/secrets/derived-state.js';
import { secondaryTargets } from '../../../../src/collectors/secrets/secondary-targets.js';
import { parseConfig } from '../../../../src/config/load.js';
import type { PartOutcome } from '../../../../src/jobs/part.js';
import type { GroupWriter, RenderedGroup } from '../../../../src/metrics/render.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { replicationStatusData, type ReplicationStatus } from '../../../../src/collectors/secrets/replication-status.js';

const st = (o: Record<string, unknown>): ReplicationStatus => replicationStatusData.parse(o);
const primary = (id: string, known: string[]) => st({ mode: 'primary', cluster_id: id, known_secondaries: known });
const secondary = (id: string, secondaryId: string) => st({ mode: 'secondary', cluster_id: id, secondary_id: secondaryId });

describe('secrets_replication_secondary_target_info', () => {
  it('links a primary to the target whose own status names a secondary_id the primary lists', () => {
    expect(
      secondaryTargets([
        { target: 'p', kind: 'performance', status: primary('c1', ['perf-2', 'gone']) },
        { target: 's', kind: 'performance', status: secondary('c1', 'perf-2') },
        { target: 'other', kind: 'dr', status: secondary('c1', 'perf-2') },
      ]),
    ).toEqual([{ kind: 'performance', primary: 'p', secondaryId: 'perf-2', secondary: 's' }]);
  });

  it('links an id that several configured clusters use only where the primary and secondary share cluster_id', () => {
    expect(
      secondaryTargets([
        { target: 'p1', kind: 'dr', status: primary('c1', ['dr']) },
        { target: 'p2', kind: 'dr', status: primary('c2', ['dr']) },
        { target: 's1', kind: 'dr', status: secondary('c1', 'dr') },
        { target: 's2', kind: 'dr', status: secondary('c3', 'dr') },
      ]),
    ).toEqual([{ kind: 'dr', primary: 'p1', secondaryId: 'dr', secondary: 's1' }]);
  });

  describe('as vigil derives it after each poll', () => {
    const sealed: PartOutcome = { part: 'performance', group: new Map(), error: new UpstreamError('sealed', 'service is sealed', 503) };
    const refused: PartOutcome = { part: 'performance', group: new Map(), error: new UpstreamError('connect', 'ECONNREFUSED') };
    const answered = (status: ReplicationStatus): PartOutcome => ({ part: 'performance', group: new Map(), value: status });
    const targets = parseConfig('secrets: [{name: p, address: "http://p"}, {name: s, address: "http://s"}]\n', 'vigil.yml').secrets;
    const writer = (onReplace: (key: string, g: RenderedGroup) => void = () => undefined): GroupWriter => ({
      replace: onReplace,
      replaceLater: (key, render) => onReplace(key, render()),
      replaceAll: () => undefined,
      removePrefix: () => undefined,
    });
    const links = (state: SecretsState) => {
      let group: RenderedGroup = new Map();
      state.publish(
        targets,
        writer((key, g) => {
          if (key === SECONDARY_TARGETS_GROUP) group = g;
        }),
      );
      return [...group.values()].join('');
    };
    const line = 'secrets_replication_secondary_target_info{target="p",kind="performance",secondary_id="perf-2",secondary_target="s"} 1';

    it('keeps the link while the secondary answers sealed, since a sealed cluster keeps its identity', () => {
      const state = new SecretsState();
      state.record('p', 'performance', answered(primary('c1', ['perf-2'])));
      state.record('s', 'performance', answered(secondary('c1', 'perf-2')));
      expect(links(state)).toContain(line);
      state.record('s', 'performance', sealed);
      state.record('s', 'performance', sealed);
      expect(links(state)).toContain(line);
      expect(state.latest.get('s', 'performance')).toBeUndefined();
    });

    it('forgets it when the secondary stops answering for any other reason, or is no longer configured', () => {
      const state = new SecretsState();
      state.record('p', 'performance', answered(primary('c1', ['perf-2'])));
      state.record('s', 'performance', answered(secondary('c1', 'perf-2')));
      state.record('s', 'performance', refused);
      expect(links(state)).not.toContain(line);

      state.record('s', 'performance', answered(secondary('c1', 'perf-2')));
      state.record('s', 'performance', sealed);
      state.settle([targets[0]!], writer());
      expect(links(state)).not.toContain(line);
    });
  });
});
