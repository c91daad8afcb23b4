import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, notification, post } from '../helpers/alertmanager.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { spawnVigil, type VigilProcess } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Two vigil processes sharing one real PostgreSQL, as two replicas behind a Service: copies of a
 * notification to both at once are stored once, a replica killed right after its 200s loses
 * nothing, a database restart under load loses no 200, and both replicas answer the same.
 */
let db: TestPostgres;
const dir = tempDir('vigil-replicas-');
let config: string;
const children: ChildProcess[] = [];

async function replica(): Promise<VigilProcess> {
  const v = await spawnVigil(config, 60_000);
  children.push(v.child);
  return v;
}
/** As Alertmanager does: a 5xx is sent again (here 100 ms apart, for up to 10 s). */
const deliver = (url: string, n: unknown) =>
  waitFor(
    `an answer other than a 5xx from ${url}`,
    async () => {
      const r = await post(url, n);
      return r.status < 500 ? r : undefined;
    },
    10_000,
  );
type Page = { notifications: Array<{ groupKey: string; duplicates: number; id: number }> };
const history = async (v: VigilProcess) => (await getJson<Page>(v.url, '/api/v1/notifications?limit=1000')).body.notifications;

beforeAll(async () => {
  db = await startPostgres();
  config = join(dir, 'vigil.yml');
  writeFileSync(
    config,
    `alert_sink:\n  store:\n    postgres: { url: "${db.url}", password_file: ${db.passwordFile}, tls: { mode: disable }, statement_timeout: 2s, connect_timeout: 1s }\n`,
  );
}, 120_000);
afterAll(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await db?.destroy();
});

describe('two vigil replicas on one PostgreSQL', () => {
  it('store each notification once, lose nothing acknowledged by a replica SIGKILLed after its 200s, and answer alike', async () => {
    const [a, b] = [await replica(), await replica()];
    const sent = Array.from({ length: 30 }, (_, i) => notification({ groupKey: `g${i}`, alerts: [{ fingerprint: `f${i}`, severity: 'critical' }] }));
    // Every notification to both replicas at once, as the two Alertmanagers of an HA pair send it.
    const answers = await Promise.all(sent.flatMap((n) => [deliver(a.url, n), deliver(b.url, n)]));
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    a.child.kill('SIGKILL');
    await once(a.child, 'exit');
    const seen = await history(b);
    expect(seen.map((n) => n.groupKey).sort()).toEqual(sent.map((n) => n.groupKey as string).sort());
    expect(seen.every((n) => n.duplicates === 1)).toBe(true);
    const c = await replica();
    expect(await history(c)).toEqual(seen);
    expect((await getJson(c.url, '/api/v1/alerts')).body).toEqual((await getJson(b.url, '/api/v1/alerts')).body);
  });

  it('answer 503 while the database restarts, say why on /readyz, recover by themselves, and lose no 200', async () => {
    const [a, b] = [await replica(), await replica()];
    const acknowledged = new Set<string>();
    const statuses: number[] = [];
    let stop = false;
    const load = (async () => {
      for (let i = 0; !stop && i < 2000; i++) {
        const n = notification({ groupKey: `restart-${i}`, alerts: [{ fingerprint: `r${i}` }] });
        const r = await post(i % 2 ? a.url : b.url, n).catch(() => ({ status: 0 }));
        statuses.push(r.status);
        if (r.status === 200) acknowledged.add(`restart-${i}`);
        await new Promise((res) => setTimeout(res, 10));
      }
    })();
    await waitFor('some stored', async () => (acknowledged.size >= 5 ? true : undefined), 30_000);
    await db.stop();
    const ready = await waitFor(
      '/readyz to say why',
      async () => {
        const r = await fetch(`${a.url}/readyz`);
        const body = (await r.json()) as { unavailable?: string[] };
        return r.status === 503 && body.unavailable?.some((u) => u.includes('store unavailable (unreachable)')) ? body : undefined;
      },
      30_000,
    );
    expect(ready.unavailable?.[0]).not.toContain('app-secret');
    // /metrics keeps answering; the sink's series follow within their render interval.
    await waitFor(
      'vigil_alertsink_store_up 0',
      async () => {
        const metrics = await fetch(`${a.url}/metrics`);
        return metrics.status === 200 && (await metrics.text()).includes('vigil_alertsink_store_up 0') ? true : undefined;
      },
      30_000,
    );
    await db.start();
    await waitFor(
      'both ready again',
      async () => ((await fetch(`${a.url}/readyz`)).status === 200 && (await fetch(`${b.url}/readyz`)).status === 200 ? true : undefined),
      60_000,
    );
    const after = acknowledged.size;
    await waitFor('stored again', async () => (acknowledged.size > after + 5 ? true : undefined), 30_000);
    stop = true;
    await load;
    expect(statuses).toContain(503);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    const stored = new Set((await history(a)).map((n) => n.groupKey).filter((g) => g.startsWith('restart-')));
    for (const g of acknowledged) expect(stored.has(g), g).toBe(true);
    expect(await history(b)).toEqual(await history(a));
  }, 180_000);
});
