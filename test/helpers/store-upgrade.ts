import { describe, expect, it } from 'vitest';
import { payloadSchema } from '../../src/sink/payload-schema.js';
import { foldValue, STORED_VALUE_LIMITS as LIMIT } from '../../src/sink/value-folds.js';
import { notificationKey, type AlertRecord, type AlertStore, type IncomingNotification } from '../../src/sink/store/alert-store.js';
import { notification, type AlertSpec, type NotificationSpec } from './alertmanager.js';
import { FOLD_MARKER, incoming, T0 } from './store-contract.js';

export interface UpgradeHarness {
  /** The store on the test's database, opened by a vigil that knows the first `versions` versions of the schema (all when absent). */
  open(versions?: number): Promise<AlertStore>;
  /** The versions of the schema this vigil knows. */
  latest: number;
  /**
   * The longest severity an earlier vigil could store: SQLite took any, PostgreSQL refused an index
   * entry past about 2.7 KB (the notification was answered 500, so nothing of it was stored).
   */
  longestSeverity: number;
}

/** A notification as a vigil stored it before values were folded at the door: whole, its key hashing the groupKey as sent. */
function storedWhole(spec: NotificationSpec, receivedAt: number): IncomingNotification {
  const body = JSON.stringify(notification(spec));
  const payload = payloadSchema.parse(JSON.parse(body));
  return { key: notificationKey(payload), receivedAt, payload, body };
}

const alerts = (prefix: string, n: number, extra: Partial<AlertSpec> = {}): AlertSpec[] =>
  Array.from({ length: n }, (_, i) => ({ fingerprint: `${prefix}-${i}`, severity: 'warning', ...extra }));

/**
 * What an earlier vigil stored, ordinary and hostile: 600 notifications of 17 alerts, and 6 with
 * values past today's limits or spelled like a fold (106 alerts): 10,306 alerts, 606 notifications.
 */
function earlierNotifications(h: UpgradeHarness) {
  const longName = 'n'.repeat(300);
  const longReceiver = 'r'.repeat(2000);
  const hostile: Record<string, NotificationSpec> = {
    severity: { groupKey: 'sev', alerts: [{ fingerprint: 'long-severity', severity: 's'.repeat(h.longestSeverity) }] },
    groupKey: { groupKey: 'g'.repeat(5000), alerts: alerts('long-group', 20) },
    labels: { groupKey: 'lbl', alerts: [{ fingerprint: 'spelled-label', labels: { [longName]: 'a', [foldValue(longName, LIMIT.label_name)]: 'b' } }] },
    receiver: { receiver: longReceiver, groupKey: 'rcv', alerts: alerts('long-receiver', 20) },
    labelValue: { groupKey: 'val', alerts: alerts('long-label-value', 20, { labels: { runbook: 'u'.repeat(20_000), note: 'a\u0000b' } }) },
    spelledReceiver: { receiver: foldValue(longReceiver, LIMIT.receiver), groupKey: 'srcv', alerts: alerts('spelled-receiver', 44) },
  };
  const ordinary = Array.from({ length: 600 }, (_, i) => ({ groupKey: `group-${i}`, alerts: alerts(`ordinary-${i}`, 17) }));
  return { hostile, all: [...ordinary, ...Object.values(hostile)] };
}

/** Each stored value within its limit. */
function expectBounded(a: AlertRecord): void {
  for (const [k, v] of Object.entries(a.labels)) {
    expect(Buffer.byteLength(k)).toBeLessThanOrEqual(LIMIT.label_name);
    expect(Buffer.byteLength(v)).toBeLessThanOrEqual(LIMIT.label_value);
  }
  for (const v of Object.values(a.annotations)) expect(Buffer.byteLength(v)).toBeLessThanOrEqual(LIMIT.annotation_value);
  expect(Buffer.byteLength(a.receiver)).toBeLessThanOrEqual(LIMIT.receiver);
  expect(a.severity).toBe(a.labels.severity ?? '');
}

/**
 * A store written by each earlier version of the schema, opened by this vigil: everything found,
 * every value within today's limits, distinct values still distinct, retries still copies.
 */
export function storeUpgrade(name: string, h: UpgradeHarness): void {
  describe(`a ${name} store written by an earlier vigil`, () => {
    for (let version = 1; version < h.latest; version++) {
      it(`opens from schema version ${version} with every alert and notification, its values folded and its copies still known`, async () => {
        const { hostile, all } = earlierNotifications(h);
        const before = await h.open(version);
        for (let i = 0; i < all.length; i += 50) await Promise.all(all.slice(i, i + 50).map((spec, j) => before.record(storedWhole(spec, T0 + i + j))));
        await before.close();

        const s = await h.open();
        const listed = (await s.alerts({ limit: 20_000 })).alerts;
        expect(listed).toHaveLength(10_306);
        expect((await s.notifications({ limit: 1000 })).notifications).toHaveLength(606);
        for (const a of listed) expectBounded(a);

        const bySeverity = listed.find((a) => a.fingerprint === 'long-severity')!;
        expect(bySeverity.severity).toMatch(FOLD_MARKER);
        expect((await s.alerts({ limit: 10, severity: bySeverity.severity })).alerts.map((a) => a.fingerprint)).toEqual(['long-severity']);
        // A label PostgreSQL cannot read as JSON text (a NUL), beside one past its limit: both kept.
        const long = listed.find((a) => a.fingerprint === 'long-label-value-0')!;
        expect(long.labels.note).toBe('a\u0000b');
        expect(long.labels.runbook).toMatch(FOLD_MARKER);
        const spelled = listed.find((a) => a.fingerprint === 'spelled-label')!;
        expect(Object.values(spelled.labels).sort()).toEqual(['TestAlert', 'a', 'b']);
        const summary = await s.summary();
        expect(summary.alerts.find((c) => c.severity === bySeverity.severity)?.count).toBe(1);
        expect(summary.alerts.reduce((n, c) => n + c.count, 0)).toBe(10_306);
        // web.hook, the long receiver and the one spelled like its fold: three receivers still.
        expect(summary.receivers).toHaveLength(3);
        for (const r of summary.receivers) expect(Buffer.byteLength(r.receiver)).toBeLessThanOrEqual(LIMIT.receiver);
        const receivers = new Set(listed.map((a) => a.receiver));
        expect(receivers.size).toBe(3);

        const notifications = (await s.notifications({ limit: 1000 })).notifications;
        for (const n of notifications) expect(Buffer.byteLength(n.groupKey)).toBeLessThanOrEqual(LIMIT.group_key);
        expect(notifications.find((n) => n.body.includes('g'.repeat(5000)))?.groupKey).toMatch(FOLD_MARKER);
        // Retries reaching the upgraded vigil (folded at its door) are copies of what the earlier one stored.
        for (const spec of [hostile.groupKey!, hostile.receiver!, { groupKey: 'group-7', alerts: alerts('ordinary-7', 17) }]) {
          expect((await s.record(incoming(spec, T0 + 10_000))).duplicate).toBe(true);
        }
        expect((await s.notifications({ limit: 1000 })).notifications).toHaveLength(606);
      }, 120_000);
    }
  });
}
