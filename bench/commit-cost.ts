/**
 * What committing a 15,000-member gossip pool's group costs the main thread (issue 16): the group as
 * a worker hands it back (encoded), committed over an equal one (a byte compare) and over a changed
 * one, then the body assembled. Timings printed, nothing asserted.
 *
 *   npx tsx bench/commit-cost.ts
 */
import { membersPoll } from '../src/collectors/agent/members.js';
import { CATALOG } from '../src/catalog.js';
import { SnapshotStore } from '../src/metrics/snapshot-store.js';

const MEMBERS = 15_000;
const body = (failedOffset: number) =>
  Buffer.from(
    JSON.stringify({
      Members: Array.from({ length: MEMBERS }, (_, i) => ({
        Name: `server-${i}.global`,
        Addr: `10.0.${(i >> 8) & 255}.${i & 255}`,
        Tags: { region: 'global', dc: 'dc1', build: '1.9.3' },
        Status: (i + failedOffset) % 50 === 0 ? 'failed' : 'alive',
      })),
    }),
  );
const poll = (failedOffset: number, target: string) =>
  new Map(membersPoll({ body: body(failedOffset), max: 20_000, context: { target, endpoint: 'members' } }).group);

const store = new SnapshotStore(CATALOG);
for (let t = 0; t < 5; t++) store.replace(`agents/s${t}/members`, poll(0, `s${t}`));
store.snapshot();
for (const [label, offset] of [
  ['unchanged', 0],
  ['changed', 1],
] as const) {
  const group = poll(offset, 's2');
  const t0 = performance.now();
  store.replace('agents/s2/members', group);
  const t1 = performance.now();
  const snap = store.snapshot();
  const t2 = performance.now();
  process.stdout.write(`${label}: commit ${(t1 - t0).toFixed(2)} ms, assemble ${(t2 - t1).toFixed(2)} ms (body ${snap.bytes} bytes)\n`);
}
