import { afterEach, describe, expect, it } from 'vitest';
import { foldSet, foldValue, STORED_VALUE_LIMITS } from '../../src/sink/value-folds.js';
import { getJson, notification, post } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Values longer than their limit are stored folded at the door, not refused (issue 28). */

describe('foldValue', () => {
  it('keeps a value that fits, and cuts a longer one between characters, within the limit, with a marker', () => {
    expect(foldValue('critical', 16)).toBe('critical');
    expect(foldValue('é'.repeat(8), 16)).toBe('é'.repeat(8));
    for (const unit of ['a', 'é', '€', '😀']) {
      const folded = foldValue(unit.repeat(400), 128);
      expect(Buffer.byteLength(folded)).toBeLessThanOrEqual(128);
      expect(folded).toMatch(new RegExp(`^(${unit})+…\\[folded: ${Buffer.byteLength(unit.repeat(400))} bytes, sha256 [0-9a-f]{16}\\]$`, 'u'));
    }
    expect(foldValue(`${'x'.repeat(500)}a`, 128)).not.toBe(foldValue(`${'x'.repeat(500)}b`, 128));
  });

  it('folds a value spelled like a fold too, so no value that fits is ever taken for the fold of a longer one', () => {
    const long = 'x'.repeat(500);
    const forged = foldValue(long, 128);
    expect(Buffer.byteLength(forged)).toBeLessThanOrEqual(128);
    const refolded = foldValue(forged, 128);
    expect(refolded).not.toBe(forged);
    expect(refolded).toMatch(new RegExp(`…\\[folded: ${Buffer.byteLength(forged)} bytes, sha256 [0-9a-f]{16}\\]$`));
    expect(Buffer.byteLength(refolded)).toBeLessThanOrEqual(128);
    // Only a value that ends the way a fold does: a marker inside a value, or a near miss, is a value.
    for (const kept of [`${forged} and more`, forged.replace(/]$/, ''), forged.replace('sha256', 'sha1')]) expect(foldValue(kept, 256)).toBe(kept);
  });
});

describe('foldSet', () => {
  it('keeps every label of a set it folds, one named __proto__ included', () => {
    const set = JSON.parse(`{"long":"${'v'.repeat(2000)}","__proto__":"kept","after":"x"}`) as Record<string, string>;
    const counts = {};
    const folded = foldSet(set, 'label_name', 'label_value', counts);
    expect(Object.keys(folded)).toEqual(['long', '__proto__', 'after']);
    expect(Object.getOwnPropertyDescriptor(folded, '__proto__')?.value).toBe('kept');
    expect(counts).toEqual({ label_value: 1 });
  });
});

describe('a notification with values past their limits', () => {
  let dir: string | undefined;
  let v: TestDaemon | undefined;
  afterEach(async () => {
    await v?.close();
    v = undefined;
  });

  it('is stored (200) with those values folded, and the folds counted by field', async () => {
    dir = tempDir('vigil-folds-');
    v = await startTestDaemon(`alert_sink:\n  store: { path: ${dir}/alerts.db }\n`);
    const body = notification({ alerts: [{ fingerprint: 'f1', severity: 's'.repeat(4_000_000), labels: { ['n'.repeat(300)]: 'v' } }] });
    expect((await post(v.url, body)).status).toBe(200);
    const { body: page } = await getJson<{ alerts: Array<{ severity: string; labels: Record<string, string> }> }>(v.url, '/api/v1/alerts');
    expect(Buffer.byteLength(page.alerts[0]!.severity)).toBeLessThanOrEqual(STORED_VALUE_LIMITS.label_value);
    expect(Object.keys(page.alerts[0]!.labels).every((k) => Buffer.byteLength(k) <= STORED_VALUE_LIMITS.label_name)).toBe(true);
    const m = await v.metrics();
    expect(m.get('vigil_alertsink_values_folded_total{field="label_value"}')).toBe(1);
    expect(m.get('vigil_alertsink_values_folded_total{field="label_name"}')).toBe(1);
    expect(m.get('vigil_alertsink_values_folded_total{field="receiver"}')).toBe(0);
    expect(v.logs().some((l) => l.msg === 'notification stored with long values folded')).toBe(true);
  });
});
