import { describe, expect, it } from 'vitest';
import type { Offload, OffloadPool } from '../../../src/offload/pool.js';
import { Turns } from '../../../src/support/turns.js';
import { AnswerMemo } from '../../../src/upstream/answer-memo.js';
import { Received } from '../../../src/upstream/received.js';
import { decodeTask } from '../../../src/collectors/decoding.js';
import { TEAMS_PAGE_OFFLOAD_BYTES, decodeTeamsPage } from '../../../src/collectors/teams/list.js';
import { fixture } from '../../helpers/fixtures.js';

/** A pool that records what it is handed and answers with a marker instead of running anything. */
function recordingPool() {
  const runs: Array<{ name: string; transfer: ArrayBuffer[] }> = [];
  const offload = { run: async (name: string, _input: unknown, transfer: ArrayBuffer[] = []) => (runs.push({ name, transfer }), 'from the worker') };
  return { runs, offload: offload as unknown as OffloadPool };
}

const page = (padTo = 0) => {
  const doc = fixture('teams/page-1-of-3.json') as Record<string, unknown>;
  const text = JSON.stringify({ ...doc, padding: 'x'.repeat(Math.max(0, padTo)) });
  const owned = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  owned.write(text);
  return owned;
};

/** A teams page decoded as its endpoint decodes one, through `offload` from TEAMS_PAGE_OFFLOAD_BYTES on. */
const decodeTeams = (offload: Offload, body: Buffer) =>
  decodeTask({ offload, turns: new Turns() }, decodeTeamsPage, Received.of(body), (bytes) => ({ body: bytes }), TEAMS_PAGE_OFFLOAD_BYTES);

describe('which answers leave the main thread', () => {
  it("decodes a small page (an organization's last few teams) in the collection thread, with the same task", async () => {
    const { runs, offload } = recordingPool();
    const body = page(0);
    expect(body.length).toBeLessThan(TEAMS_PAGE_OFFLOAD_BYTES);
    const decoded = await decodeTeams(offload, body);
    expect(runs).toEqual([]);
    expect(decoded).toMatchObject({ teams: expect.arrayContaining([expect.objectContaining({ id: expect.any(String) })]) });
  });

  it('moves a page of the size the service sends (100 teams, ~270 kB) to the worker, its buffer in the transfer list', async () => {
    const { runs, offload } = recordingPool();
    const body = page(270 * 1024);
    const decoded = await decodeTeams(offload, body);
    expect(decoded).toBe('from the worker');
    expect(runs).toEqual([{ name: 'teams-page', transfer: [body.buffer] }]);
  });

  it('refuses a task the decoding table does not list, which no worker thread could run', () => {
    const { offload } = recordingPool();
    const stranger = (input: { body: Uint8Array }) => input.body.length;
    expect(() => decodeTask({ offload, turns: new Turns() }, stranger, Received.of(page(0)), (body) => ({ body }), 1)).toThrow(
      'a decoding task that src/collectors/decoding.ts does not list',
    );
  });

  it("gives back a read answer's chunks whether it was decoded or known again", async () => {
    const { runs, offload } = recordingPool();
    const memo = new AnswerMemo();
    const bytes = page(270 * 1024);
    // As a socket gives it: reads of 64 KiB at most, each in a buffer of the body's own.
    const arrive = () => {
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += 65_536) {
        const c = Buffer.allocUnsafeSlow(Math.min(65_536, bytes.length - at));
        bytes.copy(c, 0, at);
        chunks.push(c);
      }
      const digest = Buffer.from('the same digest both times');
      return { body: new Received(chunks, bytes.length, digest, true), chunks };
    };
    const decodeRemembered = (body: Received) =>
      decodeTask({ offload, turns: new Turns() }, decodeTeamsPage, body, (b) => ({ body: b }), TEAMS_PAGE_OFFLOAD_BYTES, { memo, endpoint: 'teams-page' });
    const first = arrive();
    expect(await decodeRemembered(first.body)).toBe('from the worker');
    const again = arrive();
    expect(await decodeRemembered(again.body)).toBe('from the worker');
    // Decoded once (joined, then moved to the worker); known again the second time.
    expect(runs).toHaveLength(1);
    for (const c of [...first.chunks, ...again.chunks]) expect(c.buffer.byteLength).toBe(0);
  });
});
