import { describe, expect, it } from 'vitest';
import { parsePayload, unescapeReceiver } from '../../src/sink/payload-schema.js';
import type { Payload } from '../../src/sink/store/payload.js';
import { BROKEN } from '../fixtures/alertmanager/broken.js';
import { fixture } from '../helpers/fixtures.js';

const text = (path: string) => JSON.stringify(fixture(`alertmanager/${path}`));

function parsed(body: string): Payload {
  const r = parsePayload(body);
  if (!r.ok) throw new Error(`rejected: ${r.error}`);
  return r.payload;
}

describe('an Alertmanager webhook payload (version 4) as real senders write it', () => {
  it('reads a firing notification: escaped receiver, zero endsAt, nanosecond startsAt, extra fields', () => {
    const p = parsed(text('firing.json'));
    expect(p.receiver).toBe('web.hook');
    expect(p.status).toBe('firing');
    expect(p.groupKey).toBe('{}:{alertname="SecretsReplicationSecondaryDisconnected"}');
    expect(p.truncatedAlerts).toBe(0);
    expect(p.alerts).toHaveLength(1);
    const a = p.alerts[0]!;
    expect(a).toMatchObject({ status: 'firing', fingerprint: '4d1c0a9a1f3e2b7c', endsAt: null });
    expect(a.startsAt).toBe(Date.parse('2026-11-20T10:15:30.123Z'));
    expect(a.labels.severity).toBe('critical');
  });

  it('reads a resolved notification with an endsAt in another time zone', () => {
    const a = parsed(text('resolved.json')).alerts[0]!;
    expect(a.status).toBe('resolved');
    expect(a.endsAt).toBe(Date.parse('2026-11-20T10:42:00.500Z'));
  });

  it('reads truncatedAlerts and a receiver with regex metacharacters', () => {
    const p = parsed(text('truncated.json'));
    expect(p.truncatedAlerts).toBe(3);
    expect(p.receiver).toBe('team-(platform)+oncall');
    expect(p.alerts.map((a) => a.fingerprint)).toEqual(['a000000000000000', 'a000000000000001']);
  });

  it('fills what older senders leave out (truncatedAlerts, annotations, generatorURL, common labels)', () => {
    const p = parsed(
      JSON.stringify({
        version: '4',
        groupKey: 'g',
        status: 'firing',
        receiver: 'r',
        alerts: [{ status: 'firing', labels: { alertname: 'A' }, startsAt: '2026-01-01T00:00:00Z', fingerprint: 'f' }],
      }),
    );
    expect(p).toMatchObject({ truncatedAlerts: 0, groupLabels: {}, commonLabels: {}, externalURL: '' });
    expect(p.alerts[0]).toMatchObject({ annotations: {}, generatorURL: '', endsAt: null });
  });

  it('unescapes exactly what regexp.QuoteMeta escapes', () => {
    expect(unescapeReceiver('a\\.b\\+c\\*d\\?e\\(f\\)g\\|h\\[i\\]j\\{k\\}l\\^m\\$n\\\\o')).toBe('a.b+c*d?e(f)g|h[i]j{k}l^m$n\\o');
    expect(unescapeReceiver('plain-name_1')).toBe('plain-name_1');
  });
});

describe('a broken payload is refused with a message naming the field', () => {
  it.each(BROKEN)('%s', (_what, body, reason, message) => {
    const r = parsePayload(body);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe(reason);
    expect(r.error).toContain(message);
    expect(r.error.length).toBeLessThan(400);
    if (reason === 'schema') expect(r.field).toBe(message.split(':')[0]);
  });
});

describe('a body that is JSON but not an object', () => {
  it.each(['null', '1', '"text"', 'true', '[]'])('%s is a 400 reason, never a crash', (body) => {
    const r = parsePayload(body);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).not.toBe('');
  });
});
