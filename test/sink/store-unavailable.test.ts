import { execFileSync } from 'node:child_process';
import { openSync, closeSync, readFileSync, renameSync, rmSync, truncateSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { getJson, notification, post } from '../helpers/alertmanager.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series } from '../helpers/exposition.js';
import { waitFor } from '../helpers/wait.js';
import { promtoolCheckMetrics } from '../helpers/tools.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A store that cannot be used (corrupt or truncated file, a path that cannot be created) never stops
 * vigil: the sink alone degrades (503 with Retry-After, /readyz and a metric say why), the
 * collectors keep serving, nothing is answered 200 that is not stored or read.
 */
let sim: SecretsSimulator;
let dir: string;
let vigil: TestDaemon | undefined;

const start = async (storePath: string) => {
  const target = `secrets:\n  - name: primary\n    address: ${sim.cluster('dr-primary').url}\n    schedule: "${NEVER}"\n`;
  vigil = await startTestDaemon(`${target}alert_sink:\n  store: { path: ${storePath} }\n`);
  return vigil;
};

async function expectDegraded(v: TestDaemon, reason: string) {
  const res = await post(v.url, notification({ alerts: [{ fingerprint: 'f1' }] }));
  expect(res.status).toBe(503);
  expect(String(res.body.error)).toContain(reason);
  const webhook = await fetch(`${v.url}/webhook/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(notification({ alerts: [{ fingerprint: 'f2' }] })),
  });
  expect(webhook.headers.get('retry-after')).toMatch(/^\d+$/);
  const ready = await fetch(`${v.url}/readyz`);
  expect(ready.status).toBe(503);
  expect(JSON.stringify(await ready.json())).toContain(`store unavailable (${reason})`);
  expect((await getJson(v.url, '/api/v1/notifications')).status).toBe(503);
  expect((await getJson(v.url, '/api/v1/alerts')).status).toBe(503);
  const text = await v.scrape();
  expect(promtoolCheckMetrics(text).status).toBe(0);
  const m = await v.metrics();
  expect(m.get(series('vigil_alertsink_store_up', {}))).toBe(0);
  expect(m.get(series('vigil_alertsink_store_unavailable', { reason }))).toBe(1);
  // The collectors are unaffected.
  expect(m.get(series('secrets_replication_up', { target: 'primary', kind: 'dr' }))).toBe(1);
}

beforeAll(async () => {
  sim = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 });
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(() => {
  dir = tempDir('vigil-unavailable-');
});
afterEach(async () => {
  await vigil?.close();
  vigil = undefined;
});

describe('an SQLite store that cannot be used', () => {
  it('a corrupt file at start: vigil runs, the sink answers 503 and says why, and opens the store once the file is replaced', async () => {
    const path = join(dir, 'alerts.db');
    writeFileSync(path, 'this is not an SQLite database, it is what a bad restore left behind'.repeat(100));
    const v = await start(path);
    await expectDegraded(v, 'corrupt');
    expect(v.logs().some((l) => l.msg === 'alert store unavailable: the webhook answers 503 until it returns' && l.reason === 'corrupt')).toBe(true);
    unlinkSync(path);
    await waitFor('the store reopened', async () => ((await fetch(`${v.url}/readyz`)).status === 200 ? true : undefined), 30_000);
    expect((await post(v.url, notification({ alerts: [{ fingerprint: 'f1' }] }))).status).toBe(200);
    expect((await v.metrics()).get(series('vigil_alertsink_store_up', {}))).toBe(1);
  });

  it('a file truncated after it was written: found when read, answered 503 rather than 200', async () => {
    const path = join(dir, 'alerts.db');
    const v = await start(path);
    for (let i = 0; i < 40; i++)
      expect((await post(v.url, notification({ groupKey: `g${i}`, alerts: [{ fingerprint: `f${i}`, labels: { pad: 'x'.repeat(2000) } }] }))).status).toBe(200);
    await v.close();
    vigil = undefined;
    // Keep the header (a valid database) and lose the rest, as a copy cut short would.
    const size = readFileSync(path).length;
    truncateSync(path, Math.floor(size / 3));
    rmSync(`${path}-wal`, { force: true });
    const again = await start(path);
    const read = await getJson(again.url, '/api/v1/notifications?limit=1000');
    expect(read.status).toBe(503);
    await expectDegraded(again, 'corrupt');
  });

  it('a damaged page in the middle of the file: found at start, reported, nothing written into it; recovered as documented, what was readable is served', async () => {
    const path = join(dir, 'alerts.db');
    const v = await start(path);
    const sent = Array.from({ length: 60 }, (_, i) => `g${i}`);
    for (const g of sent)
      expect((await post(v.url, notification({ groupKey: g, alerts: [{ fingerprint: g, labels: { pad: 'x'.repeat(2000) } }] }))).status).toBe(200);
    await v.close();
    vigil = undefined;
    // Garbage over one page half way through the file; the header (page 1) stays valid.
    const pageSize = 4096;
    const pages = readFileSync(path).length / pageSize;
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, Math.floor(pages / 2) * pageSize);
    closeSync(fd);
    const again = await start(path);
    // Reported before anything reads or writes it, and answered 503 rather than 200.
    await expectDegraded(again, 'corrupt');
    const line = again.logs().find((l) => l.msg === 'alert store unavailable: the webhook answers 503 until it returns' && l.reason === 'corrupt');
    expect(String(line?.err)).toMatch(/damaged pages \(quick_check: .+\).*recover/);
    // The recovery docs/alert-sink.md gives: dump what reads into a new file, keep the schema version, swap.
    const dump = execFileSync('sqlite3', [path, '.dump'], { encoding: 'utf8', maxBuffer: 64 << 20 }).replace(/^ROLLBACK; -- due to errors$/m, 'COMMIT;');
    const version = execFileSync('sqlite3', [path, 'PRAGMA user_version'], { encoding: 'utf8' }).trim();
    execFileSync('sqlite3', [`${path}.recovered`], { input: `${dump}\nPRAGMA user_version = ${version};\n` });
    renameSync(`${path}.recovered`, path);
    await waitFor('the recovered store opened', async () => ((await fetch(`${again.url}/readyz`)).status === 200 ? true : undefined), 30_000);
    const read = await getJson<{ notifications: Array<{ groupKey: string }> }>(again.url, '/api/v1/notifications?limit=1000');
    const kept = read.body.notifications.map((n) => n.groupKey);
    expect(kept.length).toBeGreaterThan(sent.length / 2);
    expect(sent).toEqual(expect.arrayContaining(kept));
    expect((await post(again.url, notification({ groupKey: 'after', alerts: [{ fingerprint: 'after' }] }))).status).toBe(200);
  });

  it('a store path that cannot be created: vigil runs and the sink says why', async () => {
    writeFileSync(join(dir, 'file'), '');
    const v = await start(join(dir, 'file', 'alerts.db'));
    await expectDegraded(v, 'cannot_open');
  });
});
