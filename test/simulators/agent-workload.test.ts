import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentScenario, type AgentSimulator } from '../../simulators/agent/index.js';
import { admin } from '../helpers/agent-sim.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The region's workload as the simulated agents list it (`/v1/jobs`, `/v1/evaluations`,
 * `/v1/deployments`), shared by the region's agents, and the `/_sim/jobs` faults that change it.
 */
const NO_JOBS = 'agent-and-node-only-token';
const LIST_ONLY = 'list-jobs-only-token';
let sim: AgentSimulator;

type Group = { Queued: number; Complete: number; Failed: number; Running: number; Starting: number; Lost: number; Unknown: number };
interface Job {
  ID: string;
  Namespace: string;
  Type: string;
  Status: string;
  ParentID: string;
  Periodic: boolean;
  Meta?: Record<string, string>;
  JobSummary: { Summary: Record<string, Group>; Children: { Pending: number; Running: number; Dead: number } };
}
interface Eval {
  ID: string;
  JobID: string;
  Namespace: string;
  Status: string;
  StatusDescription: string;
  PreviousEval: string;
  BlockedEval: string;
  FailedTGAllocs: Record<string, { NodesEvaluated: number; NodesExhausted: number }> | null;
  CreateIndex: number;
}
interface Deployment {
  ID: string;
  JobID: string;
  JobVersion: number;
  Status: string;
  StatusDescription: string;
  TaskGroups: Record<string, { DesiredTotal: number; HealthyAllocs: number; UnhealthyAllocs: number }>;
  CreateIndex: number;
}

const get = (path: string, token = sim.readToken, agent = 'server-1') => fetch(`${sim.agent(agent).url}${path}`, { headers: { 'X-Scheduler-Token': token } });
async function json<T>(path: string, agent = 'server-1'): Promise<T> {
  const res = await get(path, sim.readToken, agent);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}
const jobs = (query = '') => json<Job[]>(`/v1/jobs${query}`);
const job = async (namespace: string, id: string) => (await jobs(`?namespace=${namespace}`)).find((j) => j.ID === id)!;
const evals = (query = '') => json<Eval[]>(`/v1/evaluations${query}`);
const deployments = (query = '') => json<Deployment[]>(`/v1/deployments${query}`);

/** Every item of a listing, page by page, and the pages' sizes. */
async function allPages<T>(path: string, perPage: number): Promise<{ items: T[]; sizes: number[]; tokens: string[] }> {
  const items: T[] = [];
  const sizes: number[] = [];
  const tokens: string[] = [];
  let token: string | null = null;
  do {
    const res = await get(`${path}${path.includes('?') ? '&' : '?'}per_page=${perPage}${token ? `&next_token=${encodeURIComponent(token)}` : ''}`);
    expect(res.status).toBe(200);
    const page = (await res.json()) as T[];
    items.push(...page);
    sizes.push(page.length);
    token = res.headers.get('X-Scheduler-NextToken');
    if (token) tokens.push(token);
  } while (token);
  return { items, sizes, tokens };
}

/** A server and a client of one region (both answer from its workload), behind ACLs. */
const scenario: AgentScenario = {
  agents: ['server', 'client'].map((role) => ({ name: `${role}-1`, role: role as 'server' | 'client' })),
  acl: {
    enabled: true,
    tokens: [NO_JOBS, LIST_ONLY].map((secret, i) => ({ secret, policies: i === 0 ? ['agent:read', 'node:read'] : ['namespace:list-jobs'] })),
  },
};

beforeAll(async () => {
  sim = await startAgentSimulator(scenario);
});
afterAll(async () => {
  await sim?.close();
});
afterEach(async () => {
  expect((await admin(sim, 'server-1', 'jobs', undefined, 'DELETE')).status).toBe(200);
});

describe('GET /v1/jobs', () => {
  it('lists the default namespace, or every one with *, in namespace then ID order, each with its summary', async () => {
    const ids = (list: Job[]) => list.map((j) => `${j.Namespace}/${j.ID}`);
    expect(ids(await jobs())).toEqual(ids(await jobs('?namespace=default')));
    expect((await jobs()).every((j) => j.Namespace === 'default')).toBe(true);
    expect(ids(await jobs('?namespace=payments'))).toEqual(['payments/gateway', 'payments/ledger']);
    const all = await jobs('?namespace=*');
    expect(all).toHaveLength(9);
    expect(ids(all)).toEqual([...ids(all)].sort((a, b) => (a.replace('/', '.') < b.replace('/', '.') ? -1 : 1)));
    expect(await jobs('?namespace=nowhere')).toEqual([]);
  });

  it('holds a healthy default workload: services running in full, a complete batch, a system job, a periodic parent and its dead children', async () => {
    const all = await jobs('?namespace=*');
    const services = all.filter((j) => j.Type === 'service');
    expect(services.length).toBeGreaterThanOrEqual(3);
    for (const s of services) {
      expect(s.Status).toBe('running');
      for (const g of Object.values(s.JobSummary.Summary)) expect(g.Failed + g.Queued + g.Lost).toBe(0);
    }
    expect(all.find((j) => j.ID === 'nightly-report')).toMatchObject({ Type: 'batch', Status: 'dead' });
    expect(all.find((j) => j.Type === 'system')?.Status).toBe('running');
    const backup = all.find((j) => j.ID === 'backup')!;
    expect(backup).toMatchObject({ Periodic: true, Status: 'running' });
    expect(backup.JobSummary.Children).toEqual({ Pending: 0, Running: 0, Dead: 2 });
    expect(all.filter((j) => j.ParentID === 'backup').map((j) => j.Status)).toEqual(['dead', 'dead']);
    expect(await evals('?namespace=*&filter=' + encodeURIComponent('Status == "blocked"'))).toEqual([]);
  });

  it('adds Meta only when asked with meta=true', async () => {
    expect((await jobs()).some((j) => 'Meta' in j)).toBe(false);
    expect((await jobs('?meta=true')).find((j) => j.ID === 'web')?.Meta).toEqual({ team: 'frontend' });
  });

  it('pages per_page jobs, the next job as <namespace>.<id> in X-Scheduler-NextToken, none after the last page', async () => {
    const { items, sizes, tokens } = await allPages<Job>('/v1/jobs?namespace=*', 4);
    expect(sizes).toEqual([4, 4, 1]);
    expect(items.map((j) => j.ID)).toEqual((await jobs('?namespace=*')).map((j) => j.ID));
    expect(tokens).toEqual([items[4], items[8]].map((j) => `${j!.Namespace}.${j!.ID}`));
    expect((await get('/v1/jobs?per_page=x')).status).toBe(400);
  });

  it('needs namespace:list-jobs: 403 without it, the same answer from every agent of the region', async () => {
    const res = await get('/v1/jobs', NO_JOBS);
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('Permission denied');
    expect((await get('/v1/jobs', LIST_ONLY)).status).toBe(200);
    expect(await json<Job[]>('/v1/jobs?namespace=*', 'client-1')).toEqual(await jobs('?namespace=*'));
  });
});

describe('GET /v1/evaluations and /v1/evaluations/count', () => {
  const count = async (query: string) => (await json<{ Count: number }>(`/v1/evaluations/count?${query}`)).Count;
  const filter = (f: string) => `filter=${encodeURIComponent(f)}`;

  it('need namespace:read-job', async () => {
    for (const path of ['/v1/evaluations', '/v1/evaluations/count', '/v1/deployments']) {
      expect((await get(path, LIST_ONLY)).status, path).toBe(403);
      expect((await get(path, NO_JOBS)).status, path).toBe(403);
    }
  });

  it('page in creation order, the token <CreateIndex>.<ID>, by namespace or all of them', async () => {
    const all = await evals('?namespace=*');
    expect(all.map((e) => e.CreateIndex)).toEqual([...all.map((e) => e.CreateIndex)].sort((a, b) => a - b));
    const { items, sizes, tokens } = await allPages<Eval>('/v1/evaluations?namespace=*', 3);
    expect(items).toEqual(all);
    expect(sizes.slice(0, -1).every((s) => s === 3)).toBe(true);
    expect(tokens[0]).toBe(`${all[3]!.CreateIndex}.${all[3]!.ID}`);
    expect((await evals()).every((e) => e.Namespace === 'default')).toBe(true);
    expect((await evals('?namespace=payments')).map((e) => e.JobID).sort()).toEqual(['gateway', 'ledger']);
  });

  it('filter with Status == "x" joined by or, and JobID == "x"; anything else is a 400 on the list, a 500 on the count', async () => {
    await admin(sim, 'server-1', 'evaluations', { blocked: 2, pending: 1, job: 'web' });
    const blockedOrPending = filter('Status == "blocked" or Status == "pending"');
    expect((await evals(`?${blockedOrPending}`)).map((e) => e.Status).sort()).toEqual(['blocked', 'blocked', 'pending']);
    expect(await count(blockedOrPending)).toBe(3);
    expect(await count(`namespace=*&${filter('Status == "blocked"')}`)).toBe(2);
    expect(await count(`namespace=payments&${filter('Status == "blocked"')}`)).toBe(0);
    expect((await evals(`?${filter('JobID == "web"')}`)).every((e) => e.JobID === 'web')).toBe(true);
    expect(await count('namespace=*')).toBe((await evals('?namespace=*')).length);
    const bad = await get(`/v1/evaluations?${filter('Priority > 50')}`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await bad.text()).toMatch(/^failed to create result paginator: failed to read filter expression: /);
    expect((await get(`/v1/evaluations/count?${filter('Status = blocked')}`)).status).toBe(500);
  });
});

describe('GET /v1/deployments', () => {
  it('holds an older and a latest successful deployment of every service job, paged like the rest', async () => {
    const all = await deployments('?namespace=*');
    const web = all.filter((d) => d.JobID === 'web');
    expect(web.map((d) => [d.JobVersion, d.Status])).toEqual([
      [0, 'successful'],
      [1, 'successful'],
    ]);
    expect(web[1]!.StatusDescription).toBe('Deployment completed successfully');
    const { items, tokens } = await allPages<Deployment>('/v1/deployments?namespace=*', 5);
    expect(items).toEqual(all);
    expect(tokens[0]).toBe(`${all[5]!.CreateIndex}.${all[5]!.ID}`);
  });
});

describe('the workload faults', () => {
  it('fail: the failed (or lost) count rises while nothing runs; DELETE lets it run again', async () => {
    expect((await admin(sim, 'server-1', 'jobs/default/web/fail', { every_ms: 20 })).status).toBe(200);
    const failing = await waitFor('web to fail 3 times', async () => {
      const g = (await job('default', 'web')).JobSummary.Summary.web!;
      return g.Failed >= 3 ? g : undefined;
    });
    expect(failing.Running).toBe(0);
    expect((await admin(sim, 'server-1', 'jobs/default/web/fail', undefined, 'DELETE')).status).toBe(200);
    const after = (await job('default', 'web')).JobSummary.Summary.web!;
    expect(after.Running).toBe(3);
    expect(after.Failed).toBeGreaterThanOrEqual(3);

    await admin(sim, 'server-1', 'jobs/payments/ledger/fail', { every_ms: 20, lost: true });
    await waitFor('ledger to lose an allocation', async () => ((await job('payments', 'ledger')).JobSummary.Summary.ledger!.Lost > 0 ? true : undefined));
    expect((await admin(sim, 'server-1', 'jobs/default/nope/fail', {})).status).toBe(404);
  });

  it('queue: queued allocations, none running, and a blocked evaluation whose nodes are exhausted', async () => {
    const res = await admin(sim, 'server-1', 'jobs/payments/gateway/queue', { queued: 4, running: 0 });
    expect(res.status).toBe(200);
    const gateway = await job('payments', 'gateway');
    expect(gateway.JobSummary.Summary.gateway).toMatchObject({ Queued: 4, Running: 0 });
    expect(gateway.Status).toBe('pending');
    const blocked = await evals(`?namespace=payments&filter=${encodeURIComponent('Status == "blocked"')}`);
    expect(blocked).toHaveLength(1);
    expect(blocked[0]).toMatchObject({ JobID: 'gateway', StatusDescription: 'created to place remaining allocations' });
    expect(blocked[0]!.FailedTGAllocs?.gateway).toMatchObject({ NodesEvaluated: 4, NodesExhausted: 4 });
    const placing = (await evals('?namespace=payments')).find((e) => e.BlockedEval === blocked[0]!.ID);
    expect(placing?.FailedTGAllocs?.gateway?.NodesExhausted).toBe(4);

    await admin(sim, 'server-1', 'jobs/payments/gateway/queue', undefined, 'DELETE');
    expect((await job('payments', 'gateway')).JobSummary.Summary.gateway).toMatchObject({ Queued: 0, Running: 2 });
    expect(await evals(`?namespace=payments&filter=${encodeURIComponent('Status == "blocked"')}`)).toEqual([]);
  });

  it('deployment: a failed latest deployment leaves the job below what it should run', async () => {
    const res = await admin(sim, 'server-1', 'jobs/default/web/deployment', { status: 'failed', healthy: 1 });
    expect(res.status).toBe(200);
    const web = (await deployments()).filter((d) => d.JobID === 'web');
    const latest = web.at(-1)!;
    expect(latest).toMatchObject({ JobVersion: 2, Status: 'failed', StatusDescription: 'Failed due to unhealthy allocations' });
    expect(latest.TaskGroups.web).toMatchObject({ DesiredTotal: 3, HealthyAllocs: 1, UnhealthyAllocs: 2 });
    expect((await job('default', 'web')).JobSummary.Summary.web!.Running).toBe(1);
    expect((await admin(sim, 'server-1', 'jobs/default/web/deployment', { status: 'exploded' })).status).toBe(400);
  });

  it('POST /_sim/jobs adds a job (a batch job whose run failed); DELETE /_sim/jobs brings the scenario back', async () => {
    const res = await admin(sim, 'server-1', 'jobs', { id: 'etl', namespace: 'payments', type: 'batch', groups: { load: 1 }, outcome: 'failed' });
    expect(res.status).toBe(200);
    const etl = await job('payments', 'etl');
    expect(etl).toMatchObject({ Type: 'batch', Status: 'dead' });
    expect(etl.JobSummary.Summary.load).toMatchObject({ Failed: 1, Running: 0 });
    const state = (await (await admin(sim, 'client-1', 'state', undefined, 'GET')).json()) as { workload: { jobs: Record<string, number> } };
    expect(state.workload.jobs['batch/dead']).toBe(4);
    await admin(sim, 'server-1', 'jobs', undefined, 'DELETE');
    expect(await job('payments', 'etl')).toBeUndefined();
  });
});

describe('a sized workload', () => {
  it('generates 10,000 jobs, and pages through all of them exactly once', async () => {
    const big = await startAgentSimulator({ agents: [{ name: 'server-1', role: 'server' }], jobs: { count: 10_000, namespaces: ['default', 'batch'] } });
    try {
      const seen = new Set<string>();
      let pages = 0;
      let token: string | null = null;
      do {
        const res: Response = await fetch(`${big.agent('server-1').url}/v1/jobs?namespace=*&per_page=1000${token ? `&next_token=${token}` : ''}`);
        for (const j of (await res.json()) as Job[]) seen.add(`${j.Namespace}.${j.ID}`);
        token = res.headers.get('X-Scheduler-NextToken');
        pages++;
      } while (token);
      expect(seen.size).toBe(10_000);
      expect(pages).toBe(10);
      const count = (await (await fetch(`${big.agent('server-1').url}/v1/evaluations/count?namespace=batch`)).json()) as { Count: number };
      expect(count.Count).toBe(5_000);
    } finally {
      await big.close();
    }
  });
});
