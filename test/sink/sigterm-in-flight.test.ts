import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { getJson, notification, post } from '../helpers/alertmanager.js';
import { spawnVigil, type VigilProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * SIGTERM while webhook notifications are in flight (issue 28): each is either answered 200 and
 * stored, or refused (or its connection closed) and not stored; none is stored in part.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];

/** The built vigil (`npm run build`), resolved once its alert sink is ready. */
async function startBuilt(config: string): Promise<VigilProcess> {
  const v = await spawnVigil(config, { timeoutMs: 30_000, built: { root: ROOT } });
  children.push(v.child);
  return v;
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Every stored alert's fingerprint, page after page. */
async function storedFingerprints(url: string): Promise<string[]> {
  const out: string[] = [];
  let path = '/api/v1/alerts?limit=1000';
  for (;;) {
    const { status, body } = await getJson<{ alerts: Array<{ fingerprint: string }>; nextCursor: string | null }>(url, path);
    expect(status).toBe(200);
    out.push(...body.alerts.map((a) => a.fingerprint));
    if (!body.nextCursor) return out;
    path = `/api/v1/alerts?limit=1000&cursor=${body.nextCursor}`;
  }
}

describe('SIGTERM with webhook notifications in flight', () => {
  it('leaves each notification answered 200 and stored whole, or not answered 200 and not stored at all', async () => {
    const dir = tempDir('vigil-sigterm-');
    const config = join(dir, 'vigil.yml');
    writeFileSync(config, `alert_sink:\n  store: { path: ${dir}/alerts.db }\n`);
    const first = await startBuilt(config);
    // Small and large (3,000 alerts, about a megabyte) notifications, all sent at once.
    const sizes = Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? 3000 : 2));
    const sent = sizes.map((n, g) => notification({ groupKey: `g${g}`, alerts: Array.from({ length: n }, (_, a) => ({ fingerprint: `g${g}-${a}` })) }));
    const answers = sent.map((n) =>
      post(first.url, n).then(
        (r) => r.status,
        () => 'closed' as const,
      ),
    );
    // Stop once the first answer is back: the large ones are still being read, parsed or stored.
    await Promise.race(answers);
    const exited = once(first.child, 'exit');
    first.child.kill('SIGTERM');
    const outcomes = await Promise.all(answers);
    await exited;
    expect(first.child.exitCode).toBe(0);
    expect(outcomes.filter((o) => o === 200).length).toBeGreaterThan(0);

    const second = await startBuilt(config);
    const { body } = await getJson<{ notifications: Array<{ groupKey: string }> }>(second.url, '/api/v1/notifications?limit=1000');
    const stored = new Set(body.notifications.map((n) => n.groupKey));
    const perGroup = new Map<string, number>();
    for (const fp of await storedFingerprints(second.url)) perGroup.set(fp.split('-')[0]!, (perGroup.get(fp.split('-')[0]!) ?? 0) + 1);
    const seen = sizes.map((n, g) => ({ group: `g${g}`, answer: outcomes[g], stored: stored.has(`g${g}`), alerts: perGroup.get(`g${g}`) ?? 0, of: n }));
    for (const s of seen) {
      if (s.answer === 200) expect(s, 'answered 200: stored whole').toMatchObject({ stored: true, alerts: s.of });
      else expect(s, 'not answered 200: not stored').toMatchObject({ stored: false, alerts: 0 });
    }
    second.child.kill('SIGTERM');
    await once(second.child, 'exit');
  }, 120_000);
});
