import { notification, type AlertSpec } from '../../test/helpers/alertmanager.js';

/**
 * Alertmanager's traffic as a webhook receiver sees it: a standing set of alert groups, each
 * notified again and again (group_interval, repeat_interval) with the same group key; an alert
 * firing for a while, then resolved, then firing again with a new start time; the always-firing
 * Watchdog in a group of its own. A notification that repeats the last one of its group exactly is
 * what Alertmanager sends on repeat_interval, and the sink counts it as a duplicate.
 */
const GROUPS = 60;
const ALERTNAMES = ['SecretsReplicationLagging', 'SchedulerAgentMemberFailed', 'TeamsOwnersTooMany', 'NodeFilesystemAlmostFull', 'VigilCollectorFailing'];
const SEVERITIES = ['critical', 'warning', 'info'] as const;

interface Group {
  key: string;
  cluster: string;
  alertname: string;
  severity: string;
  /** Per alert of the group: when it started firing (ms), and whether it is resolved now. */
  alerts: Array<{ fingerprint: string; instance: string; startsAt: number; resolvedAt?: number }>;
}

/** A small deterministic generator: the same run sends the same sequence. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function groups(start: number): Group[] {
  return Array.from({ length: GROUPS }, (_, g) => {
    const alertname = ALERTNAMES[g % ALERTNAMES.length] ?? 'SoakAlert';
    const severity = SEVERITIES[g % SEVERITIES.length] ?? 'warning';
    // 1 to 5 alerts a group, "a few alerts each"
    const size = 1 + (g % 5);
    return {
      key: `{}/{severity="${severity}"}:{alertname="${alertname}", cluster="soak-${g}"}`,
      cluster: `soak-${g}`,
      alertname,
      severity,
      alerts: Array.from({ length: size }, (_, i) => ({
        fingerprint: `${g.toString(16).padStart(4, '0')}${i.toString(16).padStart(12, '0')}`,
        instance: `host-${g}-${i}.soak.example:9100`,
        startsAt: start,
      })),
    };
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Returns a function that gives the body of the next notification, as Alertmanager would send it now. */
export function notificationSource(seed = 26): () => string {
  const next = random(seed);
  const start = Date.now();
  const all = groups(start);
  let sent = 0;
  return () => {
    sent += 1;
    const now = Date.now();
    // Every 50th notification is the Watchdog's (at 10 a second: one each 5 s, well within max_silence).
    if (sent % 50 === 0) {
      return JSON.stringify(
        notification({
          receiver: 'watchdog',
          groupKey: '{}/{alertname="Watchdog"}:{alertname="Watchdog"}',
          alerts: [{ alertname: 'Watchdog', fingerprint: 'ffff000000000001', severity: 'none', startsAt: iso(start) }],
        }),
      );
    }
    const group = all[Math.floor(next() * all.length)] ?? all[0]!;
    // One time in five an alert of the group changes state: resolves, or fires again (a new start).
    if (next() < 0.2) {
      const alert = group.alerts[Math.floor(next() * group.alerts.length)]!;
      if (alert.resolvedAt === undefined) alert.resolvedAt = now;
      else Object.assign(alert, { startsAt: now, resolvedAt: undefined });
    }
    const alerts: AlertSpec[] = group.alerts.map((a) => ({
      alertname: group.alertname,
      fingerprint: a.fingerprint,
      severity: group.severity,
      status: a.resolvedAt === undefined ? 'firing' : 'resolved',
      startsAt: iso(a.startsAt),
      ...(a.resolvedAt === undefined ? {} : { endsAt: iso(a.resolvedAt) }),
      labels: { instance: a.instance, job: 'node', cluster: group.cluster },
    }));
    return JSON.stringify(notification({ receiver: group.severity === 'critical' ? 'pager' : 'team-chat', groupKey: group.key, alerts }));
  };
}

/** Status codes of the notifications posted so far ("error" for one that got no answer). */
export type Answers = Record<string, number>;

/**
 * Posts `perSecond` notifications a second to vigil's webhook until `stop` is called, each on time
 * whatever the previous one does (Alertmanager does not wait for one group to send another); counts
 * the answers. More than `maxInFlight` unanswered: the notification is counted as "dropped" and not
 * sent, so a stalled sink shows as such rather than as an ever longer queue in this process.
 */
export function postNotifications(url: string, token: string, perSecond: number, maxInFlight = 64): { answers: Answers; stop(): Promise<void> } {
  const answers: Answers = {};
  const count = (k: string) => (answers[k] = (answers[k] ?? 0) + 1);
  const body = notificationSource();
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  const post = async (payload: string) => {
    try {
      const res = await fetch(`${url}/webhook/alertmanager`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: payload,
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      count(String(res.status));
    } catch {
      count('error');
    }
  };
  const tick = () => {
    // Send what is due by now (catching up after a late timer), then sleep until the next one is due.
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    for (; sent < due; sent++) {
      if (inFlight.size >= maxInFlight) {
        count('dropped');
        continue;
      }
      const p = post(body()).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    timer = setTimeout(tick, Math.max(1, started + ((sent + 1) * 1000) / perSecond - performance.now()));
  };
  tick();
  return {
    answers,
    stop: async () => {
      clearTimeout(timer);
      await Promise.all(inFlight);
    },
  };
}
