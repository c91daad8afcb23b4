import { describe, expect, it } from 'vitest';
import { parsePayload } from '../../src/sink/payload-schema.js';
import { STORED_VALUE_LIMITS } from '../../src/sink/value-folds.js';
import { notificationKey, type AlertFilter, type AlertStore, type IncomingNotification, type NotificationFilter } from '../../src/sink/store/alert-store.js';
import { notification, type NotificationSpec } from './alertmanager.js';

export const DAY = 86_400_000;
export const T0 = Date.parse('2026-11-20T12:00:00Z');
/** How a folded value ends (value-folds.ts). */
export const FOLD_MARKER = /…\[folded: \d+ bytes, sha256 [0-9a-f]{16}\]$/;

/** A notification as the webhook hands it to a store; `pad` adds that many bytes to its body. */
export function incoming(spec: NotificationSpec, receivedAt = T0, pad = 0): IncomingNotification {
  const body = JSON.stringify(pad ? { ...notification(spec), padding: 'x'.repeat(pad) } : notification(spec));
  const r = parsePayload(body);
  if (!r.ok) throw new Error(r.error);
  return { key: notificationKey(r.payload), receivedAt, payload: r.payload, body };
}

/** Every alert, in list order (one page large enough for the tests). */
export const listAlerts = async (s: AlertStore, f: Omit<AlertFilter, 'limit'> = {}) => (await s.alerts({ limit: 10_000, ...f })).alerts;

/** What the summary's alert counts must always equal: a count of the alerts the store lists. */
async function countsByScan(s: AlertStore) {
  const counts = new Map<string, { state: string; severity: string; count: number }>();
  for (const a of await listAlerts(s, {})) {
    const k = `${a.state}\u0000${a.severity}`;
    const c = counts.get(k) ?? { state: a.state, severity: a.severity, count: 0 };
    c.count++;
    counts.set(k, c);
  }
  return [...counts.values()].sort((a, b) => (a.state + a.severity < b.state + b.severity ? -1 : 1));
}

export interface StoreHarness {
  /** A store on an empty database (the same database on each call within one test). */
  open(): Promise<AlertStore>;
}

/**
 * What every AlertStore must do, the same for SQLite and PostgreSQL: run against both, so the two
 * cannot drift. Each test starts on an empty database (the caller's beforeEach).
 */
export function storeContract(name: string, h: StoreHarness): void {
  describe(`the ${name} alert store (the store contract)`, () => {
    it('stores the same notification once and counts the copy as a duplicate', async () => {
      const s = await h.open();
      const n = incoming({ alerts: [{ fingerprint: 'f1', severity: 'critical' }] });
      const first = await s.record(n);
      const second = await s.record({ ...n, receivedAt: T0 + 1000, body: n.body.replace('alertmanager:9093', 'alertmanager-1:9093') });
      expect(first.duplicate).toBe(false);
      expect(second).toEqual({ id: first.id, duplicate: true });
      const page = await s.notifications({ limit: 10 });
      expect(page.notifications).toHaveLength(1);
      expect(page.notifications[0]).toMatchObject({ id: first.id, duplicates: 1, receiver: 'web.hook', body: n.body });
      expect((await listAlerts(s, {}))[0]).toMatchObject({ fingerprint: 'f1', notifications: 1, lastSeen: T0 + 1000 });
      expect((await s.summary()).receivers).toEqual([
        { receiver: 'web.hook', firing: 1, resolved: 0, duplicates: 1, truncatedAlerts: 0, lastNotificationAt: T0 + 1000 },
      ]);
      const next = await s.record(incoming({ groupKey: 'other', alerts: [{ fingerprint: 'f2' }] }));
      expect(next.duplicate).toBe(false);
      expect(next.id).toBeGreaterThan(first.id);
    });

    it('stores notifications arriving together, a copy among them once and the other copy as its duplicate', async () => {
      const s = await h.open();
      const n = incoming({ alerts: [{ fingerprint: 'f1' }] });
      const together = await Promise.all([
        s.record(n),
        s.record({ ...n, receivedAt: T0 + 5 }),
        s.record(incoming({ groupKey: 'b', alerts: [{ fingerprint: 'f2' }] })),
      ]);
      // Which copy wins is the store's business; that exactly one does is not.
      expect(
        together
          .slice(0, 2)
          .map((r) => r.duplicate)
          .sort(),
      ).toEqual([false, true]);
      expect(together[0]?.id).toBe(together[1]?.id);
      expect(together[2]).toMatchObject({ duplicate: false });
      expect(together[2]?.id).not.toBe(together[0]?.id);
      expect((await s.notifications({ limit: 10 })).notifications).toHaveLength(2);
      expect((await s.summary()).receivers[0]).toMatchObject({ firing: 2, duplicates: 1 });
    });

    it('keeps each alert by fingerprint with every firing/resolved transition', async () => {
      const s = await h.open();
      await s.record(incoming({ alerts: [{ fingerprint: 'f1' }] }, T0));
      await s.record(incoming({ groupKey: 'again', alerts: [{ fingerprint: 'f1' }] }, T0 + 1000)); // a repeat: no transition
      await s.record(incoming({ alerts: [{ fingerprint: 'f1', status: 'resolved', endsAt: '2026-11-20T12:30:00Z' }] }, T0 + 2000));
      await s.record(incoming({ alerts: [{ fingerprint: 'f1', startsAt: '2026-11-20T13:00:00Z' }] }, T0 + 3000));
      const t = await s.timeline('f1');
      expect(t?.alert).toMatchObject({ state: 'firing', startsAt: Date.parse('2026-11-20T13:00:00Z'), endsAt: null, notifications: 4, firstSeen: T0 });
      expect((await s.summary()).alerts).toEqual([{ state: 'firing', severity: '', count: 1 }]);
      expect(t?.transitions.map((x) => [x.state, x.at, x.endsAt])).toEqual([
        ['firing', T0, null],
        ['resolved', T0 + 2000, Date.parse('2026-11-20T12:30:00Z')],
        ['firing', T0 + 3000, null],
      ]);
      expect(await s.timeline('unknown')).toBeUndefined();
    });

    it('filters alerts by state, alertname and severity', async () => {
      const s = await h.open();
      await s.record(
        incoming({
          alerts: [
            { fingerprint: 'a', alertname: 'Disk', severity: 'critical' },
            { fingerprint: 'b', alertname: 'Disk', severity: 'warning' },
            { fingerprint: 'c', alertname: 'Cpu', severity: 'warning', status: 'resolved' },
          ],
        }),
      );
      const fps = async (f: Omit<AlertFilter, 'limit'>) => (await listAlerts(s, f)).map((a) => a.fingerprint).sort();
      expect(await fps({})).toEqual(['a', 'b', 'c']);
      expect(await fps({ state: 'firing' })).toEqual(['a', 'b']);
      expect(await fps({ state: 'resolved' })).toEqual(['c']);
      expect(await fps({ alertname: 'Disk', severity: 'warning' })).toEqual(['b']);
      expect((await s.summary()).alerts).toEqual([
        { state: 'firing', severity: 'critical', count: 1 },
        { state: 'firing', severity: 'warning', count: 1 },
        { state: 'resolved', severity: 'warning', count: 1 },
      ]);
      // An alert that changes state and severity moves between the counts.
      await s.record(incoming({ groupKey: 'x', alerts: [{ fingerprint: 'a', alertname: 'Disk', severity: 'warning', status: 'resolved' }] }));
      expect((await s.summary()).alerts).toEqual([
        { state: 'firing', severity: 'warning', count: 1 },
        { state: 'resolved', severity: 'warning', count: 2 },
      ]);
      expect((await s.summary()).alerts).toEqual(await countsByScan(s));
    });

    it('pages alerts firing first, newest start first, by count and by byte budget, each alert once', async () => {
      const s = await h.open();
      const spec = (i: number) => ({
        fingerprint: `f${i}`,
        status: i % 2 ? ('resolved' as const) : ('firing' as const),
        startsAt: new Date(T0 - (i % 3) * 60_000).toISOString(),
      });
      await s.record(incoming({ alerts: Array.from({ length: 7 }, (_, i) => spec(i)) }));
      const all = (await listAlerts(s)).map((a) => a.fingerprint);
      expect(all).toHaveLength(7);
      for (const [limit, maxBytes] of [
        [2, undefined],
        [100, 1],
      ] as const) {
        const seen: string[] = [];
        let after;
        do {
          const page: Awaited<ReturnType<AlertStore['alerts']>> = await s.alerts({ limit, maxBytes, after });
          expect(page.alerts.length).toBeGreaterThan(0);
          if (maxBytes) expect(page.alerts).toHaveLength(1);
          seen.push(...page.alerts.map((a) => a.fingerprint));
          after = page.next;
        } while (after);
        expect(seen).toEqual(all);
      }
      const states = (await listAlerts(s)).map((a) => a.state);
      expect(states).toEqual([...states].sort((a, b) => (a === b ? 0 : a === 'firing' ? -1 : 1)));
    });

    it('lists firing alerts by severity (critical, warning, info, any other), each newest start first, before the resolved', async () => {
      const s = await h.open();
      const ago = (minutes: number) => new Date(T0 - minutes * 60_000).toISOString();
      await s.record(
        incoming({
          alerts: [
            { fingerprint: 'warning-new', severity: 'warning', startsAt: ago(0) },
            { fingerprint: 'critical-old', severity: 'critical', startsAt: ago(60) },
            { fingerprint: 'none', severity: 'none', startsAt: ago(1) },
            { fingerprint: 'info', severity: 'info', startsAt: ago(2) },
            { fingerprint: 'unlabelled', startsAt: ago(3) },
            { fingerprint: 'critical-new', severity: 'critical', startsAt: ago(5) },
            { fingerprint: 'warning-old', severity: 'warning', startsAt: ago(30) },
            { fingerprint: 'resolved-critical', severity: 'critical', status: 'resolved', startsAt: ago(90) },
            { fingerprint: 'resolved-info', severity: 'info', status: 'resolved', startsAt: ago(4) },
          ],
        }),
      );
      const firing = ['critical-new', 'critical-old', 'warning-new', 'warning-old', 'info', 'none', 'unlabelled'];
      expect((await listAlerts(s)).map((a) => a.fingerprint)).toEqual([...firing, 'resolved-info', 'resolved-critical']);
      expect((await listAlerts(s, { state: 'firing' })).map((a) => a.fingerprint)).toEqual(firing);
      expect((await listAlerts(s, { severity: 'warning' })).map((a) => a.fingerprint)).toEqual(['warning-new', 'warning-old']);
      expect((await listAlerts(s, { minSeverity: 'warning' })).map((a) => a.fingerprint)).toEqual([...firing.slice(0, 4), 'resolved-critical']);
      // A page ends anywhere within a severity or between two: the cursor carries on from there.
      for (const f of [{}, { state: 'firing' }, { minSeverity: 'warning' }] as const) {
        const seen: string[] = [];
        let after;
        do {
          const page: Awaited<ReturnType<AlertStore['alerts']>> = await s.alerts({ limit: 1, ...f, after });
          seen.push(...page.alerts.map((a) => a.fingerprint));
          after = page.next;
        } while (after);
        expect(seen).toEqual((await listAlerts(s, f)).map((a) => a.fingerprint));
      }
    });

    it('pages the history newest first and filters it by time and receiver', async () => {
      const s = await h.open();
      for (let i = 0; i < 5; i++) {
        await s.record(incoming({ groupKey: `g${i}`, receiver: i % 2 ? 'pager' : 'web\\.hook', alerts: [{ fingerprint: `f${i}` }] }, T0 + i * 1000));
      }
      const ids: number[][] = [];
      let after;
      do {
        const page: Awaited<ReturnType<AlertStore['notifications']>> = await s.notifications({ limit: 2, after });
        ids.push(page.notifications.map((n) => n.id));
        after = page.next;
      } while (after);
      expect(ids.map((p) => p.length)).toEqual([2, 2, 1]);
      const groups = async (f: Omit<NotificationFilter, 'limit'>) => (await s.notifications({ limit: 10, ...f })).notifications.map((n) => n.groupKey);
      expect(await groups({})).toEqual(['g4', 'g3', 'g2', 'g1', 'g0']);
      expect(ids.flat()).toEqual((await s.notifications({ limit: 10 })).notifications.map((n) => n.id));
      expect(await groups({ receiver: 'pager' })).toEqual(['g3', 'g1']);
      const window = await s.notifications({ limit: 10, since: T0 + 1000, until: T0 + 3000 });
      expect(window.notifications.map((n) => n.groupKey)).toEqual(['g3', 'g2', 'g1']);
      expect(window.next).toBeUndefined();
    });

    it('prunes what is older than the retention and keeps the counters', async () => {
      const s = await h.open();
      await s.record(incoming({ groupKey: 'old', alerts: [{ fingerprint: 'old' }] }, T0 - 31 * DAY));
      await s.record(incoming({ groupKey: 'new', alerts: [{ fingerprint: 'new' }] }, T0));
      await s.record(incoming({ groupKey: 'old2', alerts: [{ fingerprint: 'old2', severity: 'critical', status: 'resolved' }] }, T0 - 40 * DAY));
      expect(await s.prune(T0 - 30 * DAY)).toEqual({ notifications: 2, transitions: 2, alerts: 2, receivers: 0 });
      expect((await s.summary()).alerts).toEqual(await countsByScan(s));
      expect((await s.summary()).alerts).toEqual([{ state: 'firing', severity: '', count: 1 }]);
      expect((await s.notifications({ limit: 10 })).notifications.map((n) => n.groupKey)).toEqual(['new']);
      expect((await listAlerts(s, {})).map((a) => a.fingerprint)).toEqual(['new']);
      expect(await s.timeline('old')).toBeUndefined();
      expect((await s.summary()).receivers[0]).toMatchObject({ firing: 2, resolved: 1 });
      expect(await s.prune(T0 - 30 * DAY)).toEqual({ notifications: 0, transitions: 0, alerts: 0, receivers: 0 });
    });

    it('keeps everything across a restart', async () => {
      const s = await h.open();
      await s.record(incoming({ alerts: [{ fingerprint: 'w', alertname: 'Watchdog', severity: 'none' }] }, T0));
      await s.record(incoming({ truncatedAlerts: 2, groupKey: 'x', alerts: [{ fingerprint: 'f1', status: 'resolved' }] }, T0 + 1));
      const before = { n: await s.notifications({ limit: 10 }), a: await listAlerts(s, {}), t: await s.timeline('f1'), sum: await s.summary() };
      await s.close();
      const again = await h.open();
      expect(await again.notifications({ limit: 10 })).toEqual(before.n);
      expect(await listAlerts(again, {})).toEqual(before.a);
      expect(await again.timeline('f1')).toEqual(before.t);
      expect(await again.summary()).toEqual(before.sum);
      expect(before.sum.receivers[0]?.truncatedAlerts).toBe(2);
      expect(await again.lastFiring('Watchdog')).toBe(T0);
    });

    it('stores values longer than their limit folded, so an index holds only the bounded value (issue 28)', async () => {
      const s = await h.open();
      const [huge, other] = ['s'.repeat(4_000_000), `${'s'.repeat(2000)}-other`];
      const spec = (severity: string, i: number) => ({ receiver: 'r'.repeat(5000), groupKey: `g${i}`, alerts: [{ fingerprint: `f${i}`, severity }] });
      for (const [i, severity] of [huge, other].entries()) await s.record(incoming(spec(severity, i)));
      const alerts = await listAlerts(s, {});
      const severities = alerts.map((a) => a.severity);
      for (const v of severities) expect(Buffer.byteLength(v)).toBeLessThanOrEqual(STORED_VALUE_LIMITS.label_value);
      expect(severities[0]).toMatch(/^s+…\[folded: \d+ bytes, sha256 [0-9a-f]{16}\]$/);
      // Two long values with one head stay two values; each is found by its bounded value.
      expect(new Set(severities).size).toBe(2);
      for (const v of severities) expect((await listAlerts(s, { severity: v })).map((a) => a.severity)).toEqual([v]);
      expect((await s.summary()).alerts.map((a) => a.severity).sort()).toEqual([...severities].sort());
      const receivers = (await s.summary()).receivers.map((r) => Buffer.byteLength(r.receiver));
      expect(receivers).toHaveLength(1);
      expect(receivers[0]).toBeLessThanOrEqual(STORED_VALUE_LIMITS.receiver);
    });

    it("takes a notification whose groupKey is spelled like another's folded groupKey for a notification of its own", async () => {
      const s = await h.open();
      const long = incoming({ groupKey: 'g'.repeat(5000), alerts: [{ fingerprint: 'f1' }] });
      await s.record(long);
      const stored = (await s.notifications({ limit: 10 })).notifications[0]!.groupKey;
      expect(stored).toMatch(FOLD_MARKER);
      // A sender can spell the folded value itself: it is another group, not a copy of the first.
      const forged = await s.record(incoming({ groupKey: stored, alerts: [{ fingerprint: 'f1' }] }));
      expect(forged.duplicate).toBe(false);
      const groupKeys = (await s.notifications({ limit: 10 })).notifications.map((n) => n.groupKey);
      expect(new Set(groupKeys).size).toBe(2);
      // The first one's retry is still its copy.
      expect((await s.record({ ...long, receivedAt: T0 + 1 })).duplicate).toBe(true);
    });

    it("keeps a label named like another label's folded name apart from it", async () => {
      const s = await h.open();
      const name = 'n'.repeat(300);
      const first = incoming({ alerts: [{ fingerprint: 'f1', labels: { [name]: 'a' } }] });
      await s.record(first);
      const folded = Object.keys((await listAlerts(s, {}))[0]!.labels).find((k) => k !== 'alertname')!;
      expect(folded).toMatch(FOLD_MARKER);
      await s.record(incoming({ groupKey: 'g2', alerts: [{ fingerprint: 'f2', labels: { [name]: 'a', [folded]: 'b' } }] }));
      const labels = (await s.timeline('f2'))!.alert.labels;
      expect(Object.keys(labels)).toHaveLength(3);
      expect(Object.values(labels).sort()).toEqual(['TestAlert', 'a', 'b']);
      for (const k of Object.keys(labels)) expect(Buffer.byteLength(k)).toBeLessThanOrEqual(STORED_VALUE_LIMITS.label_name);
    });

    it('remembers when a firing Watchdog last arrived, duplicates included, resolutions not', async () => {
      const s = await h.open();
      const dog = incoming({ groupKey: 'wd', alerts: [{ fingerprint: 'w', alertname: 'Watchdog' }] }, T0);
      expect(await s.lastFiring('Watchdog')).toBeUndefined();
      await s.record(dog);
      await s.record({ ...dog, receivedAt: T0 + 60_000 });
      expect(await s.lastFiring('Watchdog')).toBe(T0 + 60_000);
      await s.record(incoming({ groupKey: 'wd', alerts: [{ fingerprint: 'w', alertname: 'Watchdog', status: 'resolved' }] }, T0 + 120_000));
      expect(await s.lastFiring('Watchdog')).toBe(T0 + 60_000);
    });
  });
}
