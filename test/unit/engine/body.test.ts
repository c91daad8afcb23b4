import { describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { BodyMirror, BodyPublisher, type BodyNote } from '../../../src/engine/body.js';
import { encodeGroup } from '../../helpers/encode-group.js';
import { deflatePiece } from '../../../src/metrics/gzip-stream.js';
import { family, single } from '../../../src/metrics/family.js';
import { renderGroup, type RenderedGroup } from '../../../src/metrics/render.js';
import { RUN_BYTES } from '../../../src/metrics/runs.js';
import { moveIntoShared } from '../../../src/support/transfer.js';
import { FORMATS, SnapshotStore } from '../../../src/metrics/snapshot-store.js';

const g = family<number>({ name: 'x_value', help: 'A value.', type: 'gauge', section: 'vigil', labels: ['target'], samples: single((n) => n) });
const m = family<number>({ name: 'x_member_up', help: 'Members.', type: 'gauge', section: 'vigil', labels: ['target', 'member'], samples: () => [] });

function linesOf(target: string, members: number, up = members + 1): string {
  let lines = '';
  for (let i = 0; i < members; i++) lines += `x_member_up{target="${target}",member="node-${i}"} ${i % up === 0 ? 0 : 1}\n`;
  return lines;
}

/** A gossip pool's families: its members, and one small value. */
const poolFamilies = (target: string, members: number, up: number): Array<[string, string]> => [
  ['x_member_up', linesOf(target, members, up)],
  ['x_value', `x_value{target="${target}"} ${members}\n`],
];

/** A group with a large family (a gossip pool's members), encoded in one buffer as a worker hands it over. */
const pool = (target: string, members: number, up: number): RenderedGroup => new Map(encodeGroup(poolFamilies(target, members, up)));

/** The same group as a target's memo keeps it: a large one moved into shared memory. */
function keptPool(target: string, members: number, up: number): RenderedGroup {
  const encoded = encodeGroup(poolFamilies(target, members, up));
  moveIntoShared(encoded);
  return new Map(encoded);
}

/**
 * The collection thread's store and publisher on one side, the main thread's mirror on the other,
 * and between them what postMessage does: the note cloned, the transfer list's buffers moved
 * (detached on the sending side, so a later read there fails as it would across threads).
 */
function wire() {
  const store = new SnapshotStore([g, m]);
  // the gzip members are made on the collection side: the main side never compresses
  const mirror = new BodyMirror(() => Promise.reject(new Error('compressed on the main side')));
  const sent: Array<{ fresh: number; bytes: number }> = [];
  const publisher = new BodyPublisher(
    store,
    (note: BodyNote, transfer: ArrayBuffer[]) => {
      sent.push({
        fresh: transfer.length,
        bytes: note.text.concat(note.openmetrics).reduce<number>((n, p) => n + (typeof p === 'number' ? 0 : p.bytes.byteLength), 0),
      });
      mirror.apply(structuredClone(note, { transfer }));
    },
    deflatePiece,
  );
  return { store, mirror, publisher, sent };
}

describe('the body across threads', () => {
  it('serves on the main side the very body the collection side laid out, in both formats and gzipped', async () => {
    const { store, mirror, publisher } = wire();
    // the same groups, rendered anew, in a store served where it is
    const here = new SnapshotStore([g, m]);
    for (let round = 0; round < 4; round++) {
      for (const s of [store, here]) {
        s.replace('a', pool('a', 4000, 7 + round));
        s.replace('b', pool('b', 3000, 5));
        for (let t = 0; t < 30; t++) s.replace(`small/${t}`, renderGroup([g], round * 100 + t + (t % 3 ? 0 : round), { target: `s${t}` }));
      }
      publisher.publish();
      for (const f of FORMATS) {
        const snap = mirror.snapshot(f);
        const expected = here.snapshot(f).text;
        expect(snap.text).toBe(expected);
        expect(snap.series).toBe(4000 + 3000 + 2 + 30);
        expect(gunzipSync(await snap.gzipped()).toString()).toBe(expected);
      }
    }
  });

  it('moves a large piece once: an unchanged pool is recognised after its bytes left, and not sent again', () => {
    const { store, publisher, sent, mirror } = wire();
    store.replace('a', pool('a', 4000, 7));
    publisher.publish();
    const first = sent.at(-1)!;
    expect(first.bytes).toBeGreaterThan(RUN_BYTES);
    const big = mirror
      .snapshot('text')
      .buffers()
      .find((b) => b.length >= RUN_BYTES);
    // the same pool rendered again, and one small group changed
    store.replace('a', pool('a', 4000, 7));
    store.replace('s', renderGroup([g], 1, { target: 's' }));
    publisher.publish();
    expect(sent.at(-1)!.bytes).toBeLessThan(RUN_BYTES);
    expect(mirror.snapshot('text').buffers()).toContain(big);
    // a changed pool is sent anew
    store.replace('a', pool('a', 4000, 9));
    publisher.publish();
    expect(sent.at(-1)!.bytes).toBeGreaterThan(RUN_BYTES);
    expect(mirror.snapshot('text').text).toContain('x_member_up{target="a",member="node-9"} 0\n');
  });

  it("leaves a group's bytes whole on this side: a remembered answer hands the same lines out again", () => {
    const { store, publisher, mirror } = wire();
    // one family filling its buffer: moved as it is, it would leave the group it came from empty
    const [[name, lines]] = encodeGroup([['x_member_up', linesOf('a', 4000)]]) as [[string, { bytes: Uint8Array; lines: number }]];
    expect(lines.bytes.byteLength).toBeGreaterThan(RUN_BYTES);
    expect(lines.bytes.byteLength).toBe(lines.bytes.buffer.byteLength);
    const group: RenderedGroup = new Map([[name, lines]]);
    store.replace('a', group);
    publisher.publish();
    expect(Buffer.from(lines.bytes).toString()).toBe(linesOf('a', 4000));
    expect(mirror.snapshot('text').text).toContain(linesOf('a', 4000));
  });

  it("shares a large group's bytes with the main side: one copy for both threads, the same bytes served", () => {
    const { store, publisher, mirror, sent } = wire();
    const group = keptPool('a', 4000, 7);
    const lines = group.get('x_member_up') as { bytes: Uint8Array };
    expect(lines.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    // a small group is not worth shared memory
    expect((keptPool('b', 2, 7).get('x_member_up') as { bytes: Uint8Array }).bytes.buffer).toBeInstanceOf(ArrayBuffer);
    store.replace('a', group);
    publisher.publish();
    // posted, not moved: a transfer list holding shared memory throws (see \`wire\`)
    const served = mirror
      .snapshot('text')
      .buffers()
      .find((b) => b.length >= RUN_BYTES)!;
    expect(served.buffer).toBeInstanceOf(SharedArrayBuffer);
    // the same memory, not a copy: a byte changed on one side is seen on the other
    const at = lines.bytes.byteOffset;
    const was = lines.bytes[0]!;
    new Uint8Array(lines.bytes.buffer)[at] = 0x23;
    expect(served[0]).toBe(0x23);
    new Uint8Array(lines.bytes.buffer)[at] = was;
    expect(mirror.snapshot('text').text).toContain(linesOf('a', 4000, 7));
    // this side keeps the bytes: the memo's answer renders the same lines again, found unchanged
    store.replace('a', group);
    publisher.publish();
    expect(sent).toHaveLength(1);
  });

  it('sends nothing when nothing changed, and refuses a piece it was never sent', () => {
    const { store, publisher, sent } = wire();
    store.replace('s', renderGroup([g], 1, { target: 's' }));
    publisher.publish();
    publisher.publish();
    expect(sent).toHaveLength(1);
    const mirror = new BodyMirror();
    expect(() => mirror.apply({ op: 'body', at: 0, text: [12345], openmetrics: [] })).toThrow(/piece 12345/);
  });
});
