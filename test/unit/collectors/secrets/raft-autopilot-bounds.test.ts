import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAutopilotState } from '../../../../src/collectors/secrets/raft-autopilot-answer.js';
import { autopilotFamilies } from '../../../../src/collectors/secrets/raft-autopilot-state.js';
import { CorpusServer, outcomeOf, realAnswer } from '../../../helpers/real-corpus.js';
import { seriesOf } from '../../../helpers/exposition.js';
import { renderSamples } from '../../../helpers/render.js';

/** An autopilot state of `n` servers, the leader last and every tenth unhealthy (the red team's 12,000-server answer, at any size). */
function state(n: number): Buffer {
  const servers: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const id = `raft-${i}`;
    servers[id] = {
      id,
      name: id,
      address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:8201`,
      node_status: 'alive',
      last_contact: '1.5s',
      last_term: 3,
      last_index: i === n - 1 ? 1000 : 990,
      healthy: i % 10 !== 5,
      status: i === n - 1 ? 'leader' : 'voter',
      version: '1.18.0',
    };
  }
  return Buffer.from(JSON.stringify({ data: { healthy: false, failure_tolerance: 1, leader: `raft-${n - 1}`, servers } }));
}

const mapped = (body: Buffer, max: number) => {
  const view = decodeAutopilotState({ body, max });
  if (!view) throw new Error('no state');
  return renderSamples(autopilotFamilies, view, { target: 's' });
};

/** The least of three timings: what the work costs, without a pause the machine took elsewhere. */
function fastest(work: () => void): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

describe('an autopilot state of thousands of servers', () => {
  it('keeps series for max_raft_servers of them, the leader and the unhealthy first, and counts every voter', () => {
    const s = mapped(state(12_000), 100);
    expect(seriesOf(s, 'secrets_raft_server_healthy').size).toBe(100);
    expect(s.get('secrets_raft_server_series_dropped{target="s"}')).toBe(11_900);
    expect(s.get('secrets_raft_voters{target="s"}')).toBe(12_000);
    expect(s.get('secrets_raft_server_status{server="raft-11999",status="leader",target="s"}')).toBe(1);
    expect(s.get('secrets_raft_server_healthy{server="raft-5",target="s"}')).toBe(0);
    // The leader's index is found once, over all of them: a kept voter lags by 10.
    expect(s.get('secrets_raft_server_index_lag{server="raft-5",target="s"}')).toBe(10);
  });

  it('maps in time linear in the servers kept: ten times the servers, about ten times the time, never a hundred', () => {
    // Every server kept, so that the mapping does its work for each (no lookup repeated per server).
    const view = (n: number) => decodeAutopilotState({ body: state(n), max: n }) ?? undefined;
    const small = view(1_000);
    const large = view(10_000);
    const render = (v: typeof small) => () => renderSamples(autopilotFamilies, v as NonNullable<typeof v>, { target: 's' });
    expect(fastest(render(large)) / fastest(render(small))).toBeLessThan(40);
  });
});

describe('an autopilot answer of the largest size a target accepts', () => {
  const server = new CorpusServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('is decoded where it never holds up the collection thread for long', async () => {
    const base = realAnswer('secrets/raft-autopilot-state-1.18.json');
    const body = JSON.parse(state(60_000).toString('utf8')) as unknown;
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    const scrape = await server.scrape({ ...base, body });
    const took = performance.now() - started;
    delay.disable();
    expect(outcomeOf(scrape.outcome)).toBe('up');
    expect(scrape.series.get('secrets_raft_server_series_dropped')).toBe(59_900);
    // The longest the thread was held, against the whole collection of the answer: a small part of it.
    expect(delay.max / 1e6 / took).toBeLessThan(0.25);
  }, 60_000);
});
