import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { membersPoll } from '../../../src/collectors/agent/members.js';
import { collectionOffloadPool } from '../../../src/collectors/decoding.js';
import { ownedBuffers, transferable } from '../../../src/support/transfer.js';
import { UpstreamError } from '../../../src/upstream/errors.js';
import { memberPollFamilies } from '../../../src/collectors/agent/members.js';
import type { EncodedLines } from '../../../src/metrics/encoded-lines.js';
import { encodeGroup } from '../../helpers/encode-group.js';
import { renderGroup } from '../../../src/metrics/render.js';
import { holds } from '../../../src/collectors/teams/team-resource.js';
import { decodeTeamsPage } from '../../../src/collectors/teams/list.js';
import { parseExposition } from '../../helpers/exposition.js';
import { fixture } from '../../helpers/fixtures.js';
import { gossipPoolBody } from '../../helpers/gossip-pool.js';

const pool = collectionOffloadPool(2);
afterAll(() => pool.close());

const body = gossipPoolBody;
const input = (b: Buffer, max = 10_000) => ({ body: b, max, context: { target: 's1', endpoint: 'members' } });
const texts = (group: Array<[string, EncodedLines]>) => group.map(([name, e]) => [name, Buffer.from(e.bytes).toString()] as const);
const lines = (group: Array<[string, EncodedLines]>) =>
  parseExposition(
    texts(group)
      .map(([, text]) => text)
      .join(''),
  );

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

  it('hands back the bytes the main thread would have rendered, counted, in one buffer of their own', async () => {
    const moved = body(1_500);
    const offloaded = await pool.run('agent-members', input(moved, 1_000), transferable(moved));
    const members = JSON.parse(body(1_500).toString()).Members;
    const kept = [...members.filter((m: { Status: string }) => m.Status !== 'alive'), ...members.filter((m: { Status: string }) => m.Status === 'alive')].slice(
      0,
      1_000,
    );
    const expected = renderGroup(memberPollFamilies, { members, kept }, { target: 's1', endpoint: 'members' });
    expect(texts(offloaded.group)).toEqual([...expected]);
    for (const [name, e] of offloaded.group) expect(e.lines).toBe(expected.get(name)!.split('\n').length - 1);
    // 1,000 members' status (3 series each) and info lines, plus the 3 counts by status
    expect(offloaded.group.reduce((n, [, e]) => n + e.lines, 0)).toBe(4_003);
    const buffers = new Set(offloaded.group.map(([, e]) => e.bytes.buffer));
    expect(buffers.size).toBe(1);
    expect([...buffers][0]?.byteLength).toBe(offloaded.group.reduce((n, [, e]) => n + e.bytes.byteLength, 0));
  });

  it('decodes a page of teams on a worker thread into the same teams as the main thread', async () => {
    const page = () => Buffer.from(JSON.stringify(fixture('teams/page-1-of-3.json')));
    const onMain = decodeTeamsPage({ body: page() });
    const moved = page();
    const offloaded = await pool.run('teams-page', { body: moved }, transferable(moved));
    expect(offloaded).toEqual(onMain);
    expect(offloaded.teams.length).toBeGreaterThan(0);
    expect(offloaded.teams.some((t) => holds(t, 'manage-workspaces'))).toBe(true);
    await expect(pool.run('teams-page', { body: Buffer.from('{"data": [{"id": ""}]}') })).rejects.toMatchObject({ reason: 'schema' });
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

  it("moves a result's buffer only when its views fill it whole", () => {
    const group = encodeGroup([
      ['a', 'a 1\n'],
      ['b', 'b{x="é"} 2\n'],
    ]);
    expect(ownedBuffers({ group, n: 1 })).toEqual([group[0]?.[1].bytes.buffer]);
    expect(ownedBuffers({ group: [group[0]] })).toEqual([]);
    expect(ownedBuffers({ b: Buffer.from('small') })).toEqual([]);
  });

  it.runIf(process.platform === 'linux')('runs its threads at a lower priority than the main thread, which answers scrapes', async () => {
    await pool.run('agent-members', input(body(5)));
    const nice = (task: string) => Number(readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1]?.split(' ')[16]);
    const threads = readdirSync('/proc/self/task').map((t) => ({ t, nice: nice(t) }));
    const main = threads.find((x) => x.t === String(process.pid))?.nice ?? NaN;
    expect(threads.filter((x) => x.nice === main + 10).length).toBeGreaterThanOrEqual(1);
  });

  it('never moves a slice of a shared buffer (it would take its neighbours along)', () => {
    const shared = Buffer.from('small');
    expect(shared.byteLength).toBeLessThan(shared.buffer.byteLength);
    expect(transferable(shared)).toEqual([]);
    const own = Buffer.allocUnsafeSlow(16);
    expect(transferable(own)).toEqual([own.buffer]);
  });
});
