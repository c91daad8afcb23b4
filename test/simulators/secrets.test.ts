import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeOperationToken,
  demoSecretsScenario,
  startSecretsSimulator,
  type SecretsSimulator,
  type SimulatedCluster,
} from '../../simulators/secrets/index.js';
import { waitFor } from '../helpers/wait.js';

type Obj = Record<string, unknown>;

const NEVER_CHECKED = '-62135596800';
const ENVELOPE_KEYS = ['auth', 'data', 'lease_duration', 'lease_id', 'renewable', 'request_id', 'warnings', 'wrap_info'];

/** The demo pairs, plus spare clusters that start disabled for the set-up and state-table tests. */
const SPARES = ['spare-a', 'spare-b', 'spare-c', 'spare-d'];

let sim: SecretsSimulator;

beforeAll(async () => {
  const demo = demoSecretsScenario();
  // The WAL timer is effectively off here so WAL values are deterministic; one test runs its own fast simulator.
  sim = await startSecretsSimulator({ ...demo, clusters: [...demo.clusters, ...SPARES.map((name) => ({ name }))] }, { walTickMs: 3_600_000 });
});

afterAll(async () => {
  await sim.close();
});

afterEach(async () => {
  for (const name of sim.clusters.keys()) {
    await admin(name, 'faults', undefined, 'DELETE');
    await admin(name, 'seal', { sealed: false });
    await admin(name, 'quirks', { omit_state: false, numbers_as_strings: false, extra_fields: true });
  }
});

interface CallOptions {
  method?: string;
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

interface Answer {
  status: number;
  body: Obj;
  text: string;
}

const c = (name: string): SimulatedCluster => sim.cluster(name);

async function call(cluster: string | SimulatedCluster, path: string, opts: CallOptions = {}): Promise<Answer> {
  const target = typeof cluster === 'string' ? c(cluster) : cluster;
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers['X-Secrets-Token'] = opts.token;
  const body = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const res = await fetch(`${target.url}/v1/${path}`, {
    method: opts.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, body: text === '' ? {} : (JSON.parse(text) as Obj) };
}

/** A request with the cluster's root token. */
const rooted = (cluster: string, path: string, body?: unknown, method?: string): Promise<Answer> =>
  call(cluster, path, { token: c(cluster).rootToken, ...(body === undefined ? {} : { body }), ...(method ? { method } : {}) });

async function admin(cluster: string, path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<Obj> {
  const res = await fetch(`${c(cluster).url}/_sim/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status, `admin ${method} ${path}`).toBeLessThan(300);
  return res.status === 204 ? {} : ((await res.json()) as Obj);
}

async function status(cluster: string, kind: 'dr' | 'performance'): Promise<Obj> {
  const res = await call(cluster, `sys/replication/${kind}/status`);
  expect(res.status).toBe(200);
  return res.body.data as Obj;
}

const first = (list: unknown): Obj => {
  expect(Array.isArray(list)).toBe(true);
  return (list as Obj[])[0] ?? {};
};

function expectErrors(answer: Answer, code: number, match?: RegExp): void {
  expect(answer.status).toBe(code);
  expect(Array.isArray(answer.body.errors)).toBe(true);
  const errors = answer.body.errors as string[];
  expect(errors.length).toBeGreaterThan(0);
  if (match) expect(errors.join(' ')).toMatch(match);
}

/** Enables the primary first unless it already is one. */
async function setUpPair(kind: 'dr' | 'performance', primary: string, secondary: string, id: string): Promise<void> {
  if ((await status(primary, kind)).mode !== 'primary') {
    expect((await rooted(primary, `sys/replication/${kind}/primary/enable`, {})).status).toBe(200);
  }
  const token = await rooted(primary, `sys/replication/${kind}/primary/secondary-token`, { id });
  expect(token.status).toBe(200);
  const wrapped = (token.body.wrap_info as Obj).token as string;
  expect((await rooted(secondary, `sys/replication/${kind}/secondary/enable`, { token: wrapped })).status).toBe(200);
}

describe('GET {kind}/status', () => {
  it('answers a disabled cluster with mode "disabled" in the standard envelope, without a token', async () => {
    const res = await call('spare-d', 'sys/replication/performance/status');
    expect(res.status).toBe(200);
    for (const key of ENVELOPE_KEYS) expect(res.body).toHaveProperty(key);
    expect(res.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.data).toEqual({ mode: 'disabled' });
  });

  it('shows a primary with its secondaries, real-server extras and the never-checked epoch', async () => {
    const data = await status('dr-primary', 'dr');
    expect(data).toMatchObject({
      mode: 'primary',
      state: 'running',
      known_secondaries: ['dr-secondary'],
      corrupted_merkle_tree: false,
      last_corruption_check_epoch: NEVER_CHECKED,
      primary_cluster_addr: '',
      ssct_generation_counter: 0,
      last_reindex_epoch: '0',
    });
    expect(data.cluster_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(data.merkle_root).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof data.last_wal).toBe('number');
    const secondary = first(data.secondaries);
    expect(secondary).toMatchObject({
      api_address: c('dr-secondary').url,
      connection_status: 'connected',
      node_id: 'dr-secondary',
      clock_skew_ms: '0',
    });
    expect(secondary.cluster_address).toMatch(/^https:\/\//);
    expect(Date.now() - Date.parse(secondary.last_heartbeat as string)).toBeLessThan(5_000);
  });

  it('shows a secondary streaming WALs from its primary, caught up and with the same merkle root', async () => {
    const primary = await status('perf-primary', 'performance');
    const data = await status('perf-secondary', 'performance');
    expect(data).toMatchObject({
      mode: 'secondary',
      state: 'stream-wals',
      secondary_id: 'perf-secondary',
      connection_state: 'ready',
      last_remote_wal: primary.last_wal,
      merkle_root: primary.merkle_root,
    });
    // One replication set, one cluster ID: the service's own status samples show the primary's
    // cluster_id on its secondary (developer.hashicorp.com/vault/api-docs/system/replication/replication-dr).
    expect(data.cluster_id).toBe(primary.cluster_id);
    const link = first(data.primaries);
    expect(link).toMatchObject({ api_address: c('perf-primary').url, connection_status: 'connected', clock_skew_ms: '0' });
    expect(data.known_primary_cluster_addrs).toEqual([link.cluster_address]);
    expect(data.primary_cluster_addr).toBe(link.cluster_address);
  });

  it('is allowed in any namespace, by header or by path', async () => {
    const byHeader = await call('dr-primary', 'sys/replication/dr/status', { headers: { 'X-Secrets-Namespace': 'ns1/ns2/' } });
    expect(byHeader.status).toBe(200);
    expect((byHeader.body.data as Obj).mode).toBe('primary');
    const byPath = await call('dr-primary', 'ns1/sys/replication/dr/status');
    expect(byPath.status).toBe(200);
  });
});

describe('status quirks (/_sim/quirks)', () => {
  it('omit_state drops state from a primary', async () => {
    await admin('dr-primary', 'quirks', { omit_state: true });
    expect(await status('dr-primary', 'dr')).not.toHaveProperty('state');
  });

  it('numbers_as_strings sends last_wal and last_remote_wal as strings', async () => {
    await admin('perf-primary', 'quirks', { numbers_as_strings: true });
    await admin('perf-secondary', 'quirks', { numbers_as_strings: true });
    const primary = await status('perf-primary', 'performance');
    const secondary = await status('perf-secondary', 'performance');
    expect(primary.last_wal).toMatch(/^\d+$/);
    expect(secondary.last_remote_wal).toBe(primary.last_wal);
  });

  it('extra_fields off leaves exactly the fields of the spec', async () => {
    await admin('dr-primary', 'quirks', { extra_fields: false });
    await admin('dr-secondary', 'quirks', { extra_fields: false });
    const primary = await status('dr-primary', 'dr');
    expect(Object.keys(primary).sort()).toEqual([
      'cluster_id',
      'corrupted_merkle_tree',
      'known_secondaries',
      'last_corruption_check_epoch',
      'last_wal',
      'merkle_root',
      'mode',
      'primary_cluster_addr',
      'secondaries',
      'state',
    ]);
    expect(Object.keys(first(primary.secondaries)).sort()).toEqual(['api_address', 'cluster_address', 'connection_status', 'last_heartbeat', 'node_id']);
    const secondary = await status('dr-secondary', 'dr');
    expect(Object.keys(secondary).sort()).toEqual([
      'cluster_id',
      'known_primary_cluster_addrs',
      'last_remote_wal',
      'merkle_root',
      'mode',
      'primaries',
      'primary_cluster_addr',
      'secondary_id',
      'state',
    ]);
  });
});

describe('replication set-up over HTTP (primary/enable, primary/secondary-token, secondary/enable)', () => {
  it('links a secondary to the primary that issued its activation token', async () => {
    const enable = await rooted('spare-a', 'sys/replication/performance/primary/enable', {});
    expect(enable.status).toBe(200);
    expect((await status('spare-a', 'performance')).mode).toBe('primary');

    const token = await rooted('spare-a', 'sys/replication/performance/primary/secondary-token', { id: 'east' });
    expect(token.status).toBe(200);
    expect(token.body.data).toBeNull();
    const wrap = token.body.wrap_info as Obj;
    expect(wrap.ttl).toBe(1800);
    expect(typeof wrap.token).toBe('string');
    expect(wrap).toHaveProperty('creation_time');
    expect(wrap).toHaveProperty('wrapped_accessor');
    expect((await status('spare-a', 'performance')).known_secondaries).toEqual(['east']);

    const activate = await rooted('spare-b', 'sys/replication/performance/secondary/enable', { token: wrap.token });
    expect(activate.status).toBe(200);

    const primary = await status('spare-a', 'performance');
    expect(first(primary.secondaries)).toMatchObject({ node_id: 'east', api_address: c('spare-b').url, connection_status: 'connected' });
    const secondary = await status('spare-b', 'performance');
    expect(secondary).toMatchObject({ mode: 'secondary', secondary_id: 'east', state: 'stream-wals', last_remote_wal: primary.last_wal });
    expect(first(secondary.primaries)).toMatchObject({ api_address: c('spare-a').url, connection_status: 'connected' });
  });

  it('honours the ttl and refuses a token a second time', async () => {
    const token = await rooted('spare-a', 'sys/replication/performance/primary/secondary-token', { id: 'west', ttl: '1h' });
    expect((token.body.wrap_info as Obj).ttl).toBe(3600);
    const used = await rooted('spare-c', 'sys/replication/performance/secondary/enable', { token: (token.body.wrap_info as Obj).token });
    expect(used.status).toBe(200);
    await rooted('spare-c', 'sys/replication/performance/secondary/disable', {});
    const again = await rooted('spare-c', 'sys/replication/performance/secondary/enable', { token: (token.body.wrap_info as Obj).token });
    expectErrors(again, 400, /activation token/);
  });

  it('requires an id for a secondary token and a token for secondary/enable', async () => {
    expectErrors(await rooted('spare-a', 'sys/replication/performance/primary/secondary-token', {}), 400, /id/);
    expectErrors(await rooted('spare-d', 'sys/replication/performance/secondary/enable', {}), 400, /token/);
    expectErrors(await rooted('spare-d', 'sys/replication/performance/secondary/enable', { token: 'eyJnope' }), 400);
  });

  it('lets a performance secondary accept the primary token store', async () => {
    const res = await call('spare-b', 'sys/replication/performance/secondary/dynamic-filter/east', { token: c('spare-a').rootToken });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ dynamic_filtered_mounts: [], dynamic_filtered_namespaces: [] });
  });
});

describe('state table', () => {
  it('refuses to enable a primary on a cluster that is a secondary', async () => {
    expectErrors(await rooted('dr-secondary', 'sys/replication/dr/primary/enable', {}), 400, /promoted/);
  });

  it('refuses secondary/enable on a primary and primary operations on a disabled cluster', async () => {
    expectErrors(await rooted('dr-primary', 'sys/replication/dr/secondary/enable', { token: 'x' }), 400, /primary/);
    expectErrors(await rooted('spare-d', 'sys/replication/dr/primary/demote', {}), 400, /not a DR primary/);
  });

  it('demote keeps the cluster ID; its secondaries lose the connection', async () => {
    await setUpPair('dr', 'spare-a', 'spare-b', 'b');
    const before = await status('spare-a', 'dr');
    expect((await rooted('spare-a', 'sys/replication/dr/primary/demote', {})).status).toBe(204);
    const after = await status('spare-a', 'dr');
    expect(after).toMatchObject({ mode: 'secondary', cluster_id: before.cluster_id, state: 'idle', primaries: [] });
    const orphan = await status('spare-b', 'dr');
    expect(orphan.state).toBe('connecting');
    expect(first(orphan.primaries).connection_status).toBe('disconnected');
  });

  it('a demoted DR primary may not rejoin by address; it needs a token (update-primary rule 2)', async () => {
    const token = c('spare-a').drOperationToken();
    const body = { dr_operation_token: token, update_primary_addrs: [c('dr-primary').url] };
    expectErrors(await call('spare-a', 'sys/replication/dr/secondary/update-primary', { body }), 400, /activation token/);
    expectErrors(await call('spare-a', 'sys/replication/dr/secondary/update-primary', { body: { ...body, token: 'x' } }), 400, /not both/);
  });

  it('promote (with a DR operation token) turns the demoted cluster back into a primary with the same ID', async () => {
    const id = (await status('spare-a', 'dr')).cluster_id;
    const res = await call('spare-a', 'sys/replication/dr/secondary/promote', { body: { dr_operation_token: c('spare-a').drOperationToken() } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ complete: true, data: { complete: true } });
    expect(await status('spare-a', 'dr')).toMatchObject({ mode: 'primary', cluster_id: id, known_secondaries: [] });
  });

  it('re-enabling after disable changes the cluster ID', async () => {
    const before = (await status('spare-a', 'dr')).cluster_id;
    expect((await rooted('spare-a', 'sys/replication/dr/primary/disable', {})).status).toBe(204);
    expect(await status('spare-a', 'dr')).toEqual({ mode: 'disabled' });
    await rooted('spare-a', 'sys/replication/dr/primary/enable', {});
    const after = await status('spare-a', 'dr');
    expect(after.cluster_id).not.toBe(before);
  });

  it('revoke-secondary disconnects a secondary and forgets it', async () => {
    await call('spare-b', 'sys/replication/dr/secondary/disable', { body: { dr_operation_token: c('spare-b').drOperationToken() } });
    await setUpPair('dr', 'spare-a', 'spare-b', 'b2');
    expect((await rooted('spare-a', 'sys/replication/dr/primary/revoke-secondary', { id: 'b2' })).status).toBe(204);
    const primary = await status('spare-a', 'dr');
    expect(primary.known_secondaries).toEqual([]);
    expect(primary.secondaries).toEqual([]);
    expect(first((await status('spare-b', 'dr')).primaries).connection_status).toBe('disconnected');
  });
});

describe('authentication', () => {
  it('answers 403 permission denied to secondary-token without, or with a wrong, token', async () => {
    const none = await call('dr-primary', 'sys/replication/dr/primary/secondary-token', { body: { id: 'x' } });
    expect(none.status).toBe(403);
    expect(none.body).toEqual({ errors: ['permission denied'] });
    const wrong = await call('dr-primary', 'sys/replication/dr/primary/secondary-token', { body: { id: 'x' }, token: 's.wrong' });
    expect(wrong.status).toBe(403);
  });

  it('requires sudo for secondary-token', async () => {
    const plain = (await admin('perf-primary', 'tokens', { sudo: false })).token as string;
    const res = await call('perf-primary', 'sys/replication/performance/primary/secondary-token', { body: { id: 'x' }, token: plain });
    expectErrors(res, 403, /permission denied/);
  });

  it('accepts the token as Authorization: Bearer', async () => {
    const res = await call('perf-primary', 'sys/replication/performance/primary/secondary-token', {
      body: { id: 'bearer-check' },
      headers: { Authorization: `Bearer ${c('perf-primary').rootToken}` },
    });
    expect(res.status).toBe(200);
    await rooted('perf-primary', 'sys/replication/performance/primary/revoke-secondary', { id: 'bearer-check' });
  });

  it('needs no token for the status endpoints', async () => {
    expect((await call('perf-primary', 'sys/replication/performance/status')).status).toBe(200);
    expect((await call('perf-primary', 'sys/replication/dr/status')).status).toBe(200);
  });
});

describe('general errors', () => {
  it('answers an unknown path with 404 and an errors body', async () => {
    expectErrors(await rooted('dr-primary', 'sys/replication/dr/nonsense'), 404);
    expectErrors(await rooted('dr-primary', 'sys/mounts'), 404);
    expectErrors(await call('dr-primary', 'sys/replication/perf/status'), 404);
  });

  it('answers a wrong method with 405 and an errors body', async () => {
    const res = await rooted('dr-primary', 'sys/replication/dr/status', {}, 'POST');
    expectErrors(res, 405, /unsupported operation/);
    expectErrors(await rooted('dr-primary', 'sys/replication/dr/primary/enable', undefined, 'GET'), 405);
  });

  it('answers a path parameter ending in a period with 404', async () => {
    const res = await rooted('perf-primary', 'sys/replication/performance/primary/paths-filter/east.');
    expectErrors(res, 404, /unsupported path/);
  });

  it('answers a body that is not JSON with 400', async () => {
    const res = await call('spare-d', 'sys/replication/performance/primary/enable', { token: c('spare-d').rootToken, rawBody: '{nope' });
    expectErrors(res, 400, /JSON/);
  });

  it('stores and reads a paths filter, validating its fields', async () => {
    const path = 'sys/replication/performance/primary/paths-filter/perf-secondary';
    expectErrors(await rooted('perf-primary', path), 404);
    expectErrors(await rooted('perf-primary', path, { mode: 'sideways' }), 400, /mode/);
    expect((await rooted('perf-primary', path, { mode: 'deny', paths: ['secret/'] })).status).toBe(204);
    expect((await rooted('perf-primary', path)).body.data).toEqual({ mode: 'deny', paths: ['secret/'] });
    expect((await rooted('perf-primary', path, undefined, 'DELETE')).status).toBe(204);
  });

  it('answers ?help=1 with help text and an OpenAPI document', async () => {
    const res = await rooted('dr-primary', 'sys/replication/dr/primary/secondary-token?help=1');
    expect(res.status).toBe(200);
    expect(res.body.help).toMatch(/activation token/);
    expect((res.body.openapi as Obj).openapi).toMatch(/^3\./);
  });
});

describe('namespace restriction', () => {
  it('answers 400 to a restricted endpoint in a non-root namespace (header)', async () => {
    const res = await call('dr-primary', 'sys/replication/dr/primary/secondary-token', {
      body: { id: 'ns' },
      token: c('dr-primary').rootToken,
      headers: { 'X-Secrets-Namespace': 'team-a/' },
    });
    expectErrors(res, 400, /root namespace/);
  });

  it('answers 400 to a restricted endpoint in a namespace given in the path', async () => {
    expectErrors(await rooted('dr-primary', 'team-a/sys/replication/dr/primary/enable', {}), 400, /root namespace/);
  });

  it('treats the header "root" as the root namespace', async () => {
    const res = await call('perf-primary', 'sys/replication/performance/primary/paths-filter/x', {
      token: c('perf-primary').rootToken,
      headers: { 'X-Secrets-Namespace': 'root' },
    });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual(['no paths filter for secondary "x"']);
  });
});

describe('sealed cluster', () => {
  it('answers 503 "service is sealed" everywhere except the admin routes', async () => {
    await admin('dr-primary', 'seal', { sealed: true });
    const res = await call('dr-primary', 'sys/replication/dr/status');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ errors: ['service is sealed'] });
    expect((await rooted('dr-primary', 'sys/replication/dr/primary/enable', {})).status).toBe(503);
    expect((await admin('dr-primary', 'state')).sealed).toBe(true);
    // A sealed primary streams nothing, so its secondary loses it.
    const secondary = await status('dr-secondary', 'dr');
    expect(secondary.state).toBe('connecting');
    await admin('dr-primary', 'seal', { sealed: false });
    expect((await status('dr-secondary', 'dr')).state).toBe('stream-wals');
  });
});

describe('HTTP faults (/_sim/faults)', () => {
  it('answers 412 twice, then the real answer', async () => {
    await admin('dr-primary', 'faults', { status: { code: 412, times: 2 } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call('dr-primary', 'sys/replication/dr/status')).status);
    expect(statuses).toEqual([412, 412, 200]);
  });

  it('hangs until the client gives up', async () => {
    await admin('dr-primary', 'faults', { hang: true });
    const started = Date.now();
    await expect(call('dr-primary', 'sys/replication/dr/status', { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    // Admin routes stay answerable during a hang.
    expect((await admin('dr-primary', 'faults')).hang).toBe(true);
  });

  it('answers 200 with a body that is not JSON', async () => {
    await admin('dr-primary', 'faults', { garbage: true });
    const res = await fetch(`${c('dr-primary').url}/v1/sys/replication/dr/status`);
    expect(res.status).toBe(200);
    await expect(res.json()).rejects.toThrow(SyntaxError);
  });
});

describe('replication faults (/_sim/replication/...)', () => {
  it('disconnect shows the link down on both sides; remove hides it from secondaries[] only; connect restores it', async () => {
    await admin('dr-primary', 'replication/dr/secondaries/dr-secondary/disconnect', {});
    expect(first((await status('dr-primary', 'dr')).secondaries).connection_status).toBe('disconnected');
    const secondary = await status('dr-secondary', 'dr');
    expect(secondary.state).toBe('connecting');
    expect(first(secondary.primaries).connection_status).toBe('disconnected');

    await admin('dr-primary', 'replication/dr/secondaries/dr-secondary/disconnect', { remove: true });
    const primary = await status('dr-primary', 'dr');
    expect(primary.secondaries).toEqual([]);
    expect(primary.known_secondaries).toEqual(['dr-secondary']);

    await admin('dr-primary', 'replication/dr/secondaries/dr-secondary/connect', {});
    expect(first((await status('dr-primary', 'dr')).secondaries).connection_status).toBe('connected');
    expect((await status('dr-secondary', 'dr')).state).toBe('stream-wals');
  });

  it('a stopped heartbeat freezes last_heartbeat on both sides', async () => {
    await admin('dr-primary', 'replication/dr/secondaries/dr-secondary/heartbeat', { stopped: true });
    const frozen = first((await status('dr-primary', 'dr')).secondaries).last_heartbeat;
    // Time has gone on for the simulator once a live link's heartbeat is newer than the frozen one.
    await waitFor('a live heartbeat newer than the stopped one', async () =>
      Date.parse(first((await status('perf-primary', 'performance')).secondaries).last_heartbeat as string) > Date.parse(frozen as string) ? true : undefined,
    );
    expect(first((await status('dr-primary', 'dr')).secondaries).last_heartbeat).toBe(frozen);
    expect(first((await status('dr-secondary', 'dr')).primaries).last_heartbeat).toBe(frozen);
    await admin('dr-primary', 'replication/dr/secondaries/dr-secondary/heartbeat', { stopped: false });
    const fresh = first((await status('dr-primary', 'dr')).secondaries).last_heartbeat as string;
    expect(Date.parse(fresh)).toBeGreaterThan(Date.parse(frozen as string));
  });

  it('wal/advance without following makes the secondary lag; wal/follow catches it up', async () => {
    const before = (await status('perf-primary', 'performance')).last_wal as number;
    const advanced = await admin('perf-primary', 'replication/performance/wal/advance', { by: 40, secondaries_follow: false });
    expect(advanced.last_wal).toBe(before + 40);
    expect((await status('perf-primary', 'performance')).last_wal).toBe(before + 40);
    expect((await status('perf-secondary', 'performance')).last_remote_wal).toBe(before);
    await admin('perf-primary', 'replication/performance/wal/follow', {});
    expect((await status('perf-secondary', 'performance')).last_remote_wal).toBe(before + 40);
  });

  it('state overrides a secondary state, unknown values too, and null clears it', async () => {
    await admin('dr-secondary', 'replication/dr/state', { state: 'merkle-sync' });
    expect((await status('dr-secondary', 'dr')).state).toBe('merkle-sync');
    await admin('dr-secondary', 'replication/dr/state', { state: 'some-future-state' });
    expect((await status('dr-secondary', 'dr')).state).toBe('some-future-state');
    await admin('dr-secondary', 'replication/dr/state', { state: null });
    expect((await status('dr-secondary', 'dr')).state).toBe('stream-wals');
  });

  it('merkle/corrupt sets corrupted_merkle_tree; DELETE clears it', async () => {
    await admin('dr-primary', 'replication/dr/merkle/corrupt', { tree: '3', pages: { '17': [1, 2] } });
    expect((await status('dr-primary', 'dr')).corrupted_merkle_tree).toBe(true);
    await admin('dr-primary', 'replication/dr/merkle/corrupt', undefined, 'DELETE');
    expect((await status('dr-primary', 'dr')).corrupted_merkle_tree).toBe(false);
  });

  it('refuses a merkle/corrupt that names nothing to corrupt', async () => {
    const res = await fetch(`${c('dr-primary').url}/_sim/replication/dr/merkle/corrupt`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('say what to corrupt');
    expect((await status('dr-primary', 'dr')).corrupted_merkle_tree).toBe(false);
  });

  it('answers unknown secondaries and admin paths with 404 errors', async () => {
    const res = await fetch(`${c('dr-primary').url}/_sim/replication/dr/secondaries/ghost/disconnect`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Obj).errors).toBeInstanceOf(Array);
  });
});

describe('POST dr/secondary/merkle-check', () => {
  const path = 'sys/replication/dr/secondary/merkle-check';

  it('answers 400 without a DR operation token and 403 with a wrong one', async () => {
    expectErrors(await call('dr-secondary', path, { body: {} }), 400, /dr_operation_token/);
    expectErrors(await call('dr-secondary', path, { body: { dr_operation_token: 'sdr.wrong' } }), 403, /permission denied/);
  });

  it('reports a clean tree with a valid token and records the check in the status', async () => {
    expect((await status('dr-secondary', 'dr')).last_corruption_check_epoch).toBe(NEVER_CHECKED);
    const res = await call('dr-secondary', path, { body: { dr_operation_token: c('dr-secondary').drOperationToken() } });
    expect(res.status).toBe(200);
    const report = (res.body.data as Obj).merkle_corruption_report as Obj;
    expect(report).toMatchObject({ corrupted_root: false, corrupted_tree_map: {} });
    const checkedAt = Date.parse(report.last_corruption_check_epoch as string);
    expect(Math.abs(Date.now() - checkedAt)).toBeLessThan(5_000);
    const epoch = (await status('dr-secondary', 'dr')).last_corruption_check_epoch;
    expect(epoch).toBe(String(Math.floor(checkedAt / 1000)));
  });

  it('reports injected corruption tree by tree', async () => {
    await admin('dr-secondary', 'replication/dr/merkle/corrupt', { tree: '3', tree_type: 'replicated', pages: { '17': [1, 2] }, root: true });
    await admin('dr-secondary', 'replication/dr/merkle/corrupt', { tree: '5', tree_type: 'local', subtree_root: true });
    const res = await call('dr-secondary', path, { body: { dr_operation_token: c('dr-secondary').drOperationToken() } });
    const report = (res.body.data as Obj).merkle_corruption_report as Obj;
    expect(report.corrupted_root).toBe(true);
    const trees = report.corrupted_tree_map as Record<string, Obj>;
    expect(trees['3']).toMatchObject({
      corrupted_index_tuples_map: { '17': { corrupted: true, subpages: [1, 2] } },
      corrupted_subtree_root: false,
      tree_type: 'replicated',
    });
    expect(trees['3']?.root_hash).toMatch(/^[0-9a-f]{40}$/);
    expect(trees['5']).toMatchObject({ corrupted_index_tuples_map: null, corrupted_subtree_root: true, tree_type: 'local' });
    expect((await status('dr-secondary', 'dr')).corrupted_merkle_tree).toBe(true);
    await admin('dr-secondary', 'replication/dr/merkle/corrupt', undefined, 'DELETE');
  });

  it('is refused on a cluster that is not a DR secondary', async () => {
    const res = await call('dr-primary', path, { body: { dr_operation_token: c('dr-primary').drOperationToken() } });
    expectErrors(res, 400, /not a DR secondary/);
  });
});

describe('DR operation token generation (dr/secondary/generate-operation-token)', () => {
  const attempt = 'sys/replication/dr/secondary/generate-operation-token/attempt';
  const update = 'sys/replication/dr/secondary/generate-operation-token/update';

  it('builds a token from key shares, one attempt at a time, and the token authorizes DR operations', async () => {
    const idle = await call('dr-secondary', attempt);
    expect(idle.status).toBe(200);
    expect(idle.body).toMatchObject({ started: false, progress: 0, required: 3, complete: false, encoded_token: '' });

    const start = await call('dr-secondary', attempt, { body: {} });
    expect(start.status).toBe(200);
    const { nonce, otp } = start.body as { nonce: string; otp: string };
    expect(start.body).toMatchObject({ started: true, progress: 0, required: 3, otp_length: otp.length });
    expect(otp.length).toBeGreaterThan(0);
    expectErrors(await call('dr-secondary', attempt, { body: {} }), 400, /already in progress/);
    const read = await call('dr-secondary', attempt);
    expect(read.body).toMatchObject({ started: true, nonce });
    expect(read.body).not.toHaveProperty('otp');

    // A DR secondary is authorized by its primary's unseal key shares.
    const shares = (await admin('dr-secondary', 'key-shares')).keys as string[];
    expect(shares).toEqual((await admin('dr-primary', 'key-shares')).keys);
    expectErrors(await call('dr-secondary', update, { body: { key: shares[0], nonce: 'wrong' } }), 400, /nonce/);
    expectErrors(await call('dr-secondary', update, { body: { key: 'ab'.repeat(33), nonce } }), 400, /invalid key/);
    expect((await call('dr-secondary', update, { body: { key: shares[0], nonce } })).body).toMatchObject({ progress: 1, complete: false });
    expectErrors(await call('dr-secondary', update, { body: { key: shares[0], nonce } }), 400, /already provided/);
    expect((await call('dr-secondary', update, { body: { key: shares[1], nonce } })).body).toMatchObject({ progress: 2 });
    const done = await call('dr-secondary', update, { body: { key: shares[2], nonce } });
    expect(done.body).toMatchObject({ complete: true, progress: 3 });
    const token = decodeOperationToken(done.body.encoded_token as string, otp);
    expect(token).toMatch(/^sdr\./);

    const check = await call('dr-secondary', 'sys/replication/dr/secondary/merkle-check', { body: { dr_operation_token: token } });
    expect(check.status).toBe(200);
    const revoke = await call('dr-secondary', 'sys/replication/dr/secondary/operation-token/delete', { body: { dr_operation_token: token } });
    expect(revoke.status).toBe(204);
    const after = await call('dr-secondary', 'sys/replication/dr/secondary/merkle-check', { body: { dr_operation_token: token } });
    expect(after.status).toBe(403);
  });

  it('DELETE cancels the attempt and clears its progress', async () => {
    const start = await call('dr-secondary', attempt, { body: {} });
    const shares = (await admin('dr-secondary', 'key-shares')).keys as string[];
    await call('dr-secondary', update, { body: { key: shares[0], nonce: start.body.nonce } });
    expect((await call('dr-secondary', attempt, { method: 'DELETE' })).status).toBe(204);
    expect((await call('dr-secondary', attempt)).body).toMatchObject({ started: false, progress: 0, nonce: '' });
  });

  it('is only available on a DR secondary', async () => {
    expectErrors(await call('dr-primary', attempt), 400, /not a DR secondary/);
  });
});

describe('WAL timer', () => {
  it('advances every primary and keeps streaming secondaries caught up', async () => {
    const fast = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 10 });
    try {
      const read = async (name: string) => {
        const res = await fetch(`${fast.cluster(name).url}/v1/sys/replication/performance/status`);
        return ((await res.json()) as Obj).data as Obj;
      };
      const start = (await read('perf-primary')).last_wal as number;
      const later = await waitFor('three WAL ticks', async () => {
        const wal = (await read('perf-primary')).last_wal as number;
        return wal > start + 2 ? wal : undefined;
      });
      expect((await read('perf-secondary')).last_remote_wal).toBeGreaterThanOrEqual(later);
    } finally {
      await fast.close();
    }
  });
});

describe('simulator lifecycle', () => {
  it('throws on an unknown cluster name and gives every cluster its own port', () => {
    expect(() => sim.cluster('nope')).toThrow(/nope/);
    const ports = new Set([...sim.clusters.values()].map((cl) => new URL(cl.url).port));
    expect(ports.size).toBe(sim.clusters.size);
    expect(c('dr-primary').url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('rejects a scenario that names an unknown cluster', async () => {
    await expect(startSecretsSimulator({ clusters: [{ name: 'a' }], replication: [{ kind: 'dr', primary: 'a', secondaries: ['b'] }] })).rejects.toThrow(
      /unknown cluster "b"/,
    );
  });

  it('close ends hung connections and frees the ports', async () => {
    const own = await startSecretsSimulator({ clusters: [{ name: 'solo' }] });
    const url = own.cluster('solo').url;
    await fetch(`${url}/_sim/faults`, { method: 'POST', body: JSON.stringify({ hang: true }) });
    const hung = fetch(`${url}/v1/sys/replication/dr/status`);
    await waitFor('the request to hang in the simulator', async () => (own.cluster('solo').requests() === 1 ? true : undefined), 5_000, { everyMs: 10 });
    await own.close();
    await expect(hung).rejects.toThrow();
    await expect(fetch(`${url}/v1/sys/replication/dr/status`)).rejects.toThrow();
  });

  it('main.ts prints one line per cluster and closes on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'simulators/secrets/main.ts', '--port=0'], {
      cwd: new URL('../../', import.meta.url).pathname,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines: string[] = [];
      for await (const line of createInterface({ input: child.stdout })) {
        lines.push(line);
        if (lines.length === 4) break;
      }
      expect(lines.map((l) => l.split(' ')[0])).toEqual(['dr-primary', 'dr-secondary', 'perf-primary', 'perf-secondary']);
      const [, url, token] = lines[0]?.split(' ') ?? [];
      expect(token).toMatch(/^root_token=s\./);
      const res = await fetch(`${url}/v1/sys/replication/dr/status`);
      expect((((await res.json()) as Obj).data as Obj).mode).toBe('primary');
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
