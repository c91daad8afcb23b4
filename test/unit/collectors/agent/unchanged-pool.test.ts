import { afterAll, describe, expect, it } from 'vitest';
import { droppedCounter } from '../../../../src/collectors/agent/members-dropped.js';
import { MEMBERS_OFFLOAD_BYTES, membersEndpoint, membersFamilies, type MembersResult } from '../../../../src/collectors/agent/members.js';
import { collectionOffloadPool } from '../../../../src/collectors/decoding.js';
import { answerMemoFor } from '../../../../src/jobs/context.js';
import { jobContext } from '../../../../src/jobs/job-context.js';
import { callAs } from '../../../helpers/endpoint-call.js';
import { loopbackUpstream } from '../../../helpers/loopback-upstream.js';
import { linesText } from '../../../../src/metrics/encoded-lines.js';
import type { RenderedGroup } from '../../../../src/metrics/render.js';
import { SnapshotStore, deflateOnce } from '../../../../src/metrics/snapshot-store.js';
import { BodyPublisher } from '../../../../src/engine/body.js';
import { fixture } from '../../../helpers/fixtures.js';

const offload = collectionOffloadPool(1);
afterAll(() => offload.close());

/** The agent's answer to the next poll. */
let answer: Buffer = Buffer.alloc(0);
const upstream = loopbackUpstream((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(answer));

const T = { name: 's1', max_members: 100_000 };
const pool = fixture('agent/members-server.json') as { Members: Array<Record<string, unknown>> };
const sample = pool.Members[0] as Record<string, unknown>;
/** A pool of `n` members (past MEMBERS_OFFLOAD_BYTES from ~1,000: decoded on the worker), the first one `status`. */
const poolOf = (n: number, status = 'alive', unread: Record<string, unknown> = {}) =>
  Buffer.from(
    JSON.stringify({
      ...pool,
      ...unread,
      Members: Array.from({ length: n }, (_, i) => ({ ...sample, Name: `node-${i}`, Status: i === 0 ? status : 'alive' })),
    }),
  );
const text = (g: RenderedGroup) => [...g.values()].map(linesText).join('');
/**
 * What committing a group does: the collection thread's store takes it, and its publisher moves the
 * body's new pieces to the main thread (a piece's bytes, moved, are gone from this thread).
 */
const committer = () => {
  const store = new SnapshotStore(membersFamilies, deflateOnce, { layOut: 'when-read' });
  const publisher = new BodyPublisher(store, (_note, transfer) => structuredClone(null, { transfer }));
  return (g: RenderedGroup) => {
    store.replace('agents/s1/members', g);
    publisher.publish();
  };
};

describe.each([
  ['a small pool, decoded in the collection thread', 10],
  ['a large pool, decoded on a worker thread', 2_000],
])('an unchanged gossip pool: %s', (_, members) => {
  it('is not decoded again, and its lines stay whole after the last ones were moved away', async () => {
    const ctx = jobContext(offload);
    const memo = answerMemoFor('agents', T, ctx);
    const call = { target: T, authorized: async () => ({}), countDropped: droppedCounter(T, ctx.log) };
    const poll = async (body: Buffer) => {
      answer = body;
      return (await callAs(membersEndpoint as never, call, upstream.client(), { memo, offload })) as MembersResult;
    };
    const reused = () => ctx.upstreamStats.get('vigil/upstream/agents/s1')?.unchanged.get('agent/members') ?? 0;
    if (members > 100) expect(poolOf(members).length).toBeGreaterThan(MEMBERS_OFFLOAD_BYTES);

    const moveAway = committer();
    const first = await poll(poolOf(members));
    const expected = text(first.group);
    moveAway(first.group);
    const second = await poll(poolOf(members));
    expect(reused()).toBe(1);
    expect(text(second.group)).toBe(expected);
    moveAway(second.group);
    expect(text((await poll(poolOf(members))).group)).toBe(expected);
    expect(reused()).toBe(2);

    // New bytes that vigil reads the same (a field it does not read): the lines are those held, one
    // copy, not new ones beside them.
    const held = first.group.get('scheduler_agent_member_status');
    const same = await poll(poolOf(members, 'alive', { NotRead: 1 }));
    expect(reused()).toBe(2);
    expect(held).toBeDefined();
    expect(same.group.get('scheduler_agent_member_status')).toBe(held);

    // One member's status changed: the whole path again, and its series with it.
    const changed = text((await poll(poolOf(members, 'failed'))).group);
    expect(reused()).toBe(2);
    expect(changed).not.toBe(expected);
    expect(changed).toContain('member="node-0",status="failed"} 1');
  });
});
