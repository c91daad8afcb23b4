import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { SNAPSHOT_ERROR } from '../../simulators/secrets/snapshots.js';

/**
 * The automated snapshots' status and listing as the API documents them (in the `data` envelope,
 * test/fixtures/real/secrets/raft-snapshot-*.json), with its auth (read for the status, sudo to list,
 * root namespace only), the statuses of clusters where they do not apply, and the faults.
 */
type Obj = Record<string, unknown>;
let sim: SecretsSimulator;
let reader = '';

const url = (cluster: string) => sim.cluster(cluster).url;
async function call(cluster: string, path: string, token?: string, method = 'GET', headers: Record<string, string> = {}) {
  const res = await fetch(`${url(cluster)}${path}`, { method, headers: { ...(token ? { 'x-secrets-token': token } : {}), ...headers } });
  return { status: res.status, body: (await res.json()) as Obj };
}
const status = (name: string, token = sim.cluster('backed').rootToken) => call('backed', `/v1/sys/storage/raft/snapshot-auto/status/${name}`, token);
const fault = (name: string, body: object) => fetch(`${url('backed')}/_sim/snapshots/${name}`, { method: 'POST', body: JSON.stringify(body) });
const data = (r: { body: Obj }) => r.body.data as Obj;

beforeAll(async () => {
  sim = await startSecretsSimulator(
    {
      clusters: [
        { name: 'backed', nodes: 1, snapshots: [{ name: 'daily', intervalSeconds: 86_400 }, { name: 'hourly' }] },
        { name: 'community', nodes: 1, snapshotSupport: 'community', snapshots: [{ name: 'daily' }] },
        { name: 'no-raft', nodes: 1, snapshotSupport: 'no-raft' },
      ],
    },
    { walTickMs: 3_600_000 },
  );
  const res = await fetch(`${url('backed')}/_sim/tokens`, { method: 'POST', body: '{}' });
  reader = ((await res.json()) as { token: string }).token;
});
afterAll(() => sim?.close());

describe('the simulated automated snapshots', () => {
  it('answer the documented keys, and those newer servers add', async () => {
    const documented = Object.keys(
      (JSON.parse(readFileSync(new URL('../fixtures/real/secrets/raft-snapshot-status-docs.json', import.meta.url), 'utf8')) as { body: { data: Obj } }).body
        .data,
    );
    const r = await status('daily', reader);
    expect(r.status).toBe(200);
    expect(Object.keys(data(r)).sort()).toEqual([...documented, 'consecutive_errors', 'next_snapshot_start'].sort());
    expect(data(r)).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
  });

  it('take any valid token for the status, sudo to list, and the root namespace only', async () => {
    expect((await status('daily', 'no-such-token')).status).toBe(403);
    expect((await call('backed', '/v1/sys/storage/raft/snapshot-auto/config?list=true', reader)).status).toBe(403);
    const listed = await call('backed', '/v1/sys/storage/raft/snapshot-auto/config?list=true', sim.cluster('backed').rootToken);
    expect(listed).toEqual({ status: 200, body: { data: { keys: ['daily', 'hourly'] } } });
    const namespaced = await call('backed', '/v1/sys/storage/raft/snapshot-auto/status/daily', reader, 'GET', { 'x-secrets-namespace': 'team-a' });
    expect(namespaced.status).toBe(400);
    expect((await status('weekly')).status).toBe(404);
  });

  it('answer "not applicable" where they do not apply: 404 on a community server, 400 without integrated storage', async () => {
    const path = '/v1/sys/storage/raft/snapshot-auto/status/daily';
    expect(await call('community', path, sim.cluster('community').rootToken)).toEqual({ status: 404, body: { errors: ['enterprise-only feature'] } });
    expect(await call('no-raft', path, sim.cluster('no-raft').rootToken)).toEqual({ status: 400, body: { errors: ['raft storage is not in use'] } });
  });

  it('fail with the S3 refusal, count the attempts, and succeed again', async () => {
    const ok = data(await status('hourly'));
    expect((await fault('hourly', { failing: true, attempts: 3 })).status).toBe(200);
    const failing = data(await status('hourly'));
    expect(failing).toMatchObject({ consecutive_errors: 3, last_snapshot_error: SNAPSHOT_ERROR, last_snapshot_url: ok.last_snapshot_url });
    await fault('hourly', { failing: false });
    const again = data(await status('hourly'));
    expect(again).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
    expect(Date.parse(again.last_snapshot_end as string)).toBeGreaterThan(Date.parse(ok.last_snapshot_end as string));
  });

  it('stall: no attempt any more, the next start left in the past', async () => {
    await fault('daily', { stalled: true, stalled_for_seconds: 2 * 86_400 });
    const stalled = data(await status('daily'));
    expect(Date.now() - Date.parse(stalled.last_snapshot_end as string)).toBeGreaterThan(2 * 86_400_000 - 60_000);
    expect(Date.parse(stalled.next_snapshot_start as string)).toBeLessThan(Date.now());
    await fault('daily', { stalled: false });
    expect(Date.now() - Date.parse(data(await status('daily')).last_snapshot_end as string)).toBeLessThan(60_000);
  });

  it('refuse a fault on a configuration they do not have, and a support they do not know', async () => {
    expect((await fault('weekly', { failing: true })).status).toBe(404);
    const res = await fetch(`${url('backed')}/_sim/snapshots`, { method: 'POST', body: JSON.stringify({ support: 'oss' }) });
    expect(res.status).toBe(400);
  });
});
