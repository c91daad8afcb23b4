import { describe, expect, it } from 'vitest';
import type { AlertStore } from '../../src/sink/store/alert-store.js';
import { incoming, type StoreHarness } from './store-contract.js';

/** A notification with `n` alerts: more than one turn's slice, so the store writes it across turns. */
const large = (groupKey: string, n = 2500) => incoming({ groupKey, alerts: Array.from({ length: n }, (_, i) => ({ fingerprint: `${groupKey}-${i}` })) });
const groupKeys = async (s: AlertStore) => (await s.notifications({ limit: 100 })).notifications.map((n) => n.groupKey).sort();

/**
 * What every AlertStore must do under a stream of notifications, the same for SQLite and
 * PostgreSQL: drop what a sender left before it was committed, and answer reads between writes.
 */
export function storeStreamContract(name: string, h: StoreHarness): void {
  describe(`the ${name} alert store under a stream of notifications (the store contract)`, () => {
    it('drops a notification whose sender left before it was committed, and stores the others', async () => {
      const s = await h.open();
      const left = new AbortController();
      left.abort();
      await expect(s.record(incoming({ groupKey: 'gone', alerts: [{ fingerprint: 'g' }] }), left.signal)).rejects.toMatchObject({ kind: 'cancelled' });
      const leaving = new AbortController();
      const first = s.record(large('first'));
      const second = s.record(large('second'), leaving.signal);
      const third = s.record(incoming({ groupKey: 'third', alerts: [{ fingerprint: 't' }] }));
      await new Promise((r) => setImmediate(r));
      leaving.abort();
      await expect(second).rejects.toMatchObject({ kind: 'cancelled' });
      expect((await first).duplicate).toBe(false);
      expect((await third).duplicate).toBe(false);
      expect(await groupKeys(s)).toEqual(['first', 'third']);
      expect(await s.timeline('second-0')).toBeUndefined();
      expect((await s.summary()).alerts).toEqual([{ state: 'firing', severity: '', count: 2501 }]);
    });

    it('answers reads between large notifications, not once the whole stream is written', async () => {
      const s = await h.open();
      const order: string[] = [];
      const writes = Array.from({ length: 8 }, (_, i) => s.record(large(`w${i}`)).then(() => order.push(`w${i}`)));
      let writing = true;
      const reads = (async () => {
        while (writing) {
          await s.summary();
          order.push('read');
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      await Promise.all(writes);
      writing = false;
      await reads;
      // Every write waited for is one the reader waited for too: a read lands before the fifth write ends.
      const fifth = order.findIndex((e, i) => e.startsWith('w') && order.slice(0, i + 1).filter((x) => x.startsWith('w')).length === 5);
      const firstWrite = order.findIndex((e) => e.startsWith('w'));
      expect(order.slice(firstWrite, fifth), order.join(' ')).toContain('read');
    });
  });
}
