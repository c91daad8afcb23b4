import { afterAll, describe, expect, it } from 'vitest';
import { membersPoll } from '../../src/collectors/agent-members-poll.js';
import { OffloadPool, transferable } from '../../src/offload/pool.js';
import { UpstreamError } from '../../src/upstream/errors.js';
import { parseExposition } from '../helpers/exposition.js';

const pool = new OffloadPool(2);
afterAll(() => pool.close());

const body = (n: number) =>
  Buffer.from(
    JSON.stringify({
      Members: Array.from({ length: n }, (_, i) => ({
        Name: `server-${i}.global`,
        Addr: `10.0.${(i >> 8) & 255}.${i & 255}`,
        Tags: { region: 'global', dc: 'dc1', build: '1.9.3' },
        Status: i % 50 === 0 ? 'failed' : 'alive',
      })),
    }),
  );
const input = (b: Buffer, max = 10_000) => ({ body: b, max, context: { target: 's1', endpoint: 'members' } });
const lines = (group: Array<[string, string]>) => parseExposition(group.map(([, text]) => text).join(''));

describe('the offload pool', () => {
  it('renders a large gossip pool on a worker thread exactly as the main thread does', async () => {
    const onMain = membersPoll(input(body(3_000), 2_000));
    const moved = body(3_000);
    const offloaded = await pool.run('agent-members', input(moved, 2_000), transferable(moved));
    expect(offloaded.members).toBe(3_000);
    expect(offloaded.dropped).toBe(1_000);
    expect(lines(offloaded.group)).toEqual(lines(onMain.group));
    expect(lines(offloaded.group).get('scheduler_agent_members{status="failed",target="s1"}')).toBe(60);
    // The body was moved, not copied: it is gone from this thread.
    expect(moved.byteLength).toBe(0);
  });

  it('brings a malformed answer back as the same failure with its reason', async () => {
    const notJson = pool.run('agent-members', input(Buffer.from('{"Members": [')));
    await expect(notJson).rejects.toBeInstanceOf(UpstreamError);
    await expect(notJson).rejects.toMatchObject({ reason: 'decode' });
    await expect(pool.run('agent-members', input(Buffer.from('{"Members": [{"Name": 1}]}')))).rejects.toMatchObject({ reason: 'schema' });
    // and keeps working afterwards
    expect((await pool.run('agent-members', input(body(10)))).members).toBe(10);
  });

  it('runs tasks side by side and answers each with its own result', async () => {
    const sizes = [5, 50, 500, 7, 70];
    const results = await Promise.all(sizes.map((n) => pool.run('agent-members', input(body(n)))));
    expect(results.map((r) => r.members)).toEqual(sizes);
  });

  it('never moves a slice of a shared buffer (it would take its neighbours along)', () => {
    const shared = Buffer.from('small');
    expect(shared.byteLength).toBeLessThan(shared.buffer.byteLength);
    expect(transferable(shared)).toEqual([]);
    const own = Buffer.allocUnsafeSlow(16);
    expect(transferable(own)).toEqual([own.buffer]);
  });
});
