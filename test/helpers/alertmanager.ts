/** Builds Alertmanager webhook payloads (version 4) and posts them, for the sink's tests and benchmark. */

export interface AlertSpec {
  alertname?: string;
  fingerprint: string;
  status?: 'firing' | 'resolved';
  startsAt?: string;
  endsAt?: string;
  severity?: string;
  labels?: Record<string, string>;
}

export interface NotificationSpec {
  receiver?: string;
  groupKey?: string;
  truncatedAlerts?: number;
  alerts: AlertSpec[];
}

export const ZERO_TIME = '0001-01-01T00:00:00Z';

export function notification(spec: NotificationSpec): Record<string, unknown> {
  const alerts = spec.alerts.map((a) => {
    const status = a.status ?? 'firing';
    return {
      status,
      labels: { alertname: a.alertname ?? 'TestAlert', ...(a.severity ? { severity: a.severity } : {}), ...a.labels },
      annotations: { summary: 'test alert' },
      startsAt: a.startsAt ?? '2026-11-20T10:00:00Z',
      endsAt: a.endsAt ?? (status === 'resolved' ? '2026-11-20T10:30:00Z' : ZERO_TIME),
      generatorURL: 'http://prometheus:9090/graph',
      fingerprint: a.fingerprint,
    };
  });
  return {
    receiver: spec.receiver ?? 'web\\.hook',
    status: alerts.some((a) => a.status === 'firing') ? 'firing' : 'resolved',
    alerts,
    groupLabels: {},
    commonLabels: {},
    commonAnnotations: {},
    externalURL: 'http://alertmanager:9093',
    version: '4',
    groupKey: spec.groupKey ?? '{}:{}',
    truncatedAlerts: spec.truncatedAlerts ?? 0,
  };
}

export interface PostOptions {
  headers?: Record<string, string>;
  /** Sent as is instead of JSON.stringify(payload). */
  raw?: string;
}

export async function post(url: string, payload: unknown, opts: PostOptions = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/webhook/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...opts.headers },
    body: opts.raw ?? JSON.stringify(payload),
  });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, body };
}

export async function getJson<T = Record<string, unknown>>(
  url: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${url}${path}`, { headers });
  return { status: res.status, body: (await res.json()) as T };
}
