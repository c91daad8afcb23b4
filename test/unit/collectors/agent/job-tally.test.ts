import { describe, expect, it } from 'vitest';
import { JobFailures } from '../../../../src/collectors/agent/job-failures.js';
import { JobTally } from '../../../../src/collectors/agent/job-tally.js';
import type { JobRow } from '../../../../src/collectors/agent/jobs-page.js';

const MIN = 60_000;
const bounds = { max_jobs: 10, max_job_groups: 10, failure_window: 15 * MIN };

/** A job row; allocs in the order queued, starting, running, failed, lost, unknown, complete. */
const row = (id: string, over: Partial<JobRow> & { failed?: number; lost?: number; running?: number; queued?: number } = {}): JobRow => {
  const { failed = 0, lost = 0, running = 1, queued = 0, ...rest } = over;
  return { namespace: 'default', id, type: 'service', status: 'running', stop: false, child: false, allocs: [queued, 0, running, failed, lost, 0, 0], ...rest };
};

/** Lists `rows` at `at` minutes against what `failures` remembers of target t, as one complete listing. */
function list(failures: JobFailures, at: number, rows: JobRow[], b = bounds) {
  const tally = new JobTally(b, failures.of('t'), at * MIN);
  rows.forEach((r) => tally.add(r));
  const l = tally.listing(1);
  failures.commit('t', l.tracks);
  return l;
}

const failing = (l: ReturnType<typeof list>, id: string) => l.watched.find((j) => j.job === id)?.failing;

describe('the jobs tally', () => {
  it('takes the first listing as the baseline, then adds up the rises within the window, and forgets them after it', () => {
    const f = new JobFailures();
    expect(list(f, 0, [row('web', { failed: 5 })]).watched).toEqual([]);
    expect(failing(list(f, 1, [row('web', { failed: 7 })]), 'web')).toBe(2);
    expect(failing(list(f, 2, [row('web', { failed: 8, lost: 1 })]), 'web')).toBe(4);
    // Nothing new: the rises of minutes 1 and 2 still count until the window has passed them.
    expect(failing(list(f, 15, [row('web', { failed: 8, lost: 1 })]), 'web')).toBe(4);
    expect(failing(list(f, 16, [row('web', { failed: 8, lost: 1 })]), 'web')).toBe(2);
    expect(list(f, 17, [row('web', { failed: 8, lost: 1 })]).watched).toEqual([]);
  });

  it('sees no rise in a count that went down (the servers collected allocations), and forgets a job gone from the listing', () => {
    const f = new JobFailures();
    list(f, 0, [row('web', { failed: 5 })]);
    expect(list(f, 1, [row('web', { failed: 2 })]).watched).toEqual([]);
    list(f, 2, []);
    // Back after a listing without it: a new baseline, not a rise from 2.
    expect(list(f, 3, [row('web', { failed: 9 })]).watched).toEqual([]);
  });

  it('watches queued jobs and dead service or system jobs not stopped, but not a stopped, batch or child job that is dead', () => {
    const l = list(new JobFailures(), 0, [
      row('queued', { queued: 2 }),
      row('gone', { status: 'dead', running: 0 }),
      row('sys', { status: 'dead', type: 'system', running: 0 }),
      row('stopped', { status: 'dead', stop: true, running: 0 }),
      row('batch', { status: 'dead', type: 'batch', running: 0, failed: 1 }),
      row('child', { status: 'dead', child: true, running: 0 }),
      row('fine'),
    ]);
    expect(l.watched.map((j) => [j.job, j.dead])).toEqual([
      ['gone', true],
      ['sys', true],
      ['queued', false],
    ]);
  });

  it('counts jobs and children by namespace, type and status, any other status as other, and allocations by state', () => {
    const l = list(new JobFailures(), 0, [
      row('a'),
      row('b', { status: 'pending', queued: 1, running: 0 }),
      row('c', { child: true, status: 'dead', type: 'batch', running: 0 }),
      row('d', { status: 'weird' }),
      row('e', { allocs: undefined }),
    ]);
    const service = l.groups.find((g) => g.type === 'service');
    expect(service).toEqual({ namespace: 'default', type: 'service', jobs: [1, 2, 0, 1], children: [0, 0, 0, 0], allocs: [1, 0, 2, 0, 0, 0, 0] });
    expect(l.groups.find((g) => g.type === 'batch')?.children).toEqual([0, 0, 1, 0]);
  });

  it('keeps at most max_jobs jobs, the dead and failing first, and at most max_job_groups groups, counting the rest', () => {
    const f = new JobFailures();
    const b = { ...bounds, max_jobs: 2, max_job_groups: 1 };
    list(f, 0, [row('x', { failed: 1 })], b);
    const l = list(f, 1, [row('q1', { queued: 1 }), row('q2', { queued: 1 }), row('x', { failed: 3 }), row('other-ns', { namespace: 'ops', queued: 1 })], b);
    expect(l.watched.map((j) => j.job)).toEqual(['x', 'q1']);
    expect(l.dropped).toBe(2);
    expect(l.groups.map((g) => g.namespace)).toEqual(['default']);
    expect(l.groupsDropped).toBe(1);
  });
});
