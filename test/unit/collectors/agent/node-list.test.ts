import { beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { ByteBudget } from '../../../../src/support/byte-budget.js';
import { listNodes, nodesEndpoint } from '../../../../src/collectors/agent/nodes.js';
import type { NodesPage } from '../../../../src/collectors/agent/node-page.js';
import type { Get } from '../../../../src/collectors/endpoint.js';
import { callAs } from '../../../helpers/endpoint-call.js';
import { loopbackUpstream } from '../../../helpers/loopback-upstream.js';

/** A loopback agent whose answer to each page (by next_token, '' for the first) is set by each test. */
type Answer = { status?: number; body: unknown; next?: string; header?: string };
let answer: (token: string) => Answer;
const asked: URLSearchParams[] = [];
const upstream = loopbackUpstream((req, res) => {
  const q = new URL(req.url ?? '/', 'http://x').searchParams;
  asked.push(q);
  const a = answer(q.get('next_token') ?? '');
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(a.next ? { [a.header ?? 'X-Nomad-NextToken']: a.next } : {}) };
  res.writeHead(a.status ?? 200, headers).end(JSON.stringify(a.body));
});
beforeEach(() => {
  asked.length = 0;
});

const node = (id: string, status = 'ready') => ({
  ID: id,
  Name: `n-${id}`,
  Datacenter: 'dc1',
  Status: status,
  Drain: false,
  SchedulingEligibility: 'eligible',
});
/** What a listing is bounded by: the target's node_page_size and max_node_pages. */
interface Listing {
  node_page_size: number;
  max_node_pages: number;
}
const req = (extra: Partial<Listing> = {}): Listing => ({ node_page_size: 2, max_node_pages: 10, ...extra });
/** The node listing's call as a job makes it, its pages handed to `tally`. */
const listed = (t: Listing, tally: { addPage(p: NodesPage): void }) =>
  callAs(nodesEndpoint as never, { target: t, authorized: async () => ({}) }, upstream.client(), {
    read: ((get: Get<NodesPage>) => listNodes(get, t, tally)) as never,
  }) as Promise<number>;
/** Every node of the pages as the listing keeps it: its key's labels in the page's order, and the nodes not ready or draining by id. */
const everyNode = () => {
  const nodes: Array<Record<string, string>> = [];
  const watched: string[] = [];
  const addPage = (p: NodesPage) => {
    for (let i = 0; i < p.runs.length; i += 2) for (let n = 0; n < p.runs[i + 1]!; n++) nodes.push({ ...p.keys[p.runs[i]!]! });
    watched.push(...p.watched.map((w) => w.node_id));
  };
  return { nodes, watched, addPage };
};
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => (e instanceof UpstreamError ? { reason: e.reason, message: e.message } : e),
  );

describe('listNodes', () => {
  it('follows next_token from the header page by page, asking per_page each time', async () => {
    const pages: Record<string, Answer> = {
      '': { body: [node('a1'), node('a2')], next: 'b1' },
      b1: { body: [node('b1'), node('b2', 'down')], next: 'c1' },
      c1: { body: [node('c1')] },
    };
    answer = (t) => pages[t] as Answer;
    const tally = everyNode();
    expect(await listed(req(), tally)).toBe(3);
    expect(tally.nodes.map((n) => n.status)).toEqual(['ready', 'ready', 'ready', 'down', 'ready']);
    expect(tally.watched).toEqual(['b2']);
    expect(asked.map((q) => [q.get('per_page'), q.get('next_token')])).toEqual([
      ['2', null],
      ['2', 'b1'],
      ['2', 'c1'],
    ]);
  });

  it("reads the API's own name of the next-token header too", async () => {
    const pages: Record<string, Answer> = { '': { body: [node('a1')], next: 'b1', header: 'X-Scheduler-NextToken' }, b1: { body: [node('b1')] } };
    answer = (t) => pages[t] as Answer;
    const tally = everyNode();
    expect(await listed(req(), tally)).toBe(2);
    expect(tally.nodes).toHaveLength(2);
  });

  it('refuses a page holding more nodes than per_page before reading any of them', async () => {
    answer = () => ({ body: [node('a1'), node('a2'), node('a3')] });
    const tally = everyNode();
    expect(await failure(listed(req(), tally))).toEqual({
      reason: 'too_large',
      message: 'agent/nodes: page 1 holds 3 nodes, more than the per_page of 2 asked for',
    });
    expect(tally.nodes).toEqual([]);
  });

  it('fails a listing whose next_token comes back (a loop), and one past max_node_pages', async () => {
    answer = (t) => ({ body: [node(t || 'a')], next: t === 'x' ? 'y' : 'x' });
    expect(await failure(listed(req(), everyNode()))).toMatchObject({
      reason: 'schema',
      message: expect.stringContaining('next_token "x" again'),
    });
    let n = 0;
    answer = () => ({ body: [node(`p${n}`)], next: `t${++n}` });
    expect(await failure(listed(req({ max_node_pages: 3 }), everyNode()))).toEqual({
      reason: 'too_large',
      message: 'agent/nodes: pagination goes on past max_node_pages 3',
    });
    expect(asked).toHaveLength(3 + 3);
  });

  it('fails the whole listing when a later page fails: a partial listing would read as nodes gone', async () => {
    answer = (t) => (t === '' ? { body: [node('a1')], next: 'b' } : { status: 500, body: { error: 'rpc error' } });
    expect(await failure(listed(req(), everyNode()))).toMatchObject({ reason: 'http_5xx' });
  });

  it('costs a node without a status the listing (schema), and a node missing any other field only that field', async () => {
    answer = () => ({ body: [{ ID: 'a1', Status: 'ready', Datacenter: 7, Drain: 'true' }] });
    const tally = everyNode();
    await listed(req(), tally);
    expect(tally.nodes).toEqual([{ datacenter: '', node_pool: '', node_class: '', status: 'ready', eligibility: '', drain: 'true' }]);
    expect(tally.watched).toEqual(['a1']);
    answer = () => ({ body: [{ ID: 'a1' }] });
    expect(await failure(listed(req(), everyNode()))).toMatchObject({ reason: 'schema', message: expect.stringContaining('0.Status') });
  });

  it('gives back the turn of every page it read, and of a page refused unread past its bound', async () => {
    answer = (t) => (t === '' ? { body: [node('a1')], next: 'b1' } : { body: [node('b1')] });
    const answers = new ByteBudget(1 << 20);
    const call = { target: req(), authorized: async () => ({}) };
    expect(
      await callAs(nodesEndpoint as never, call, upstream.client(), { answers, read: ((get: Get<NodesPage>) => listNodes(get, req(), everyNode())) as never }),
    ).toBe(2);
    expect(answers.held).toBe(0);
    const refuse = () => {
      throw new UpstreamError('too_large', 'the listing is past its bound');
    };
    const refused = callAs(nodesEndpoint as never, call, upstream.client(), { answers, read: ((get: Get<NodesPage>) => get(undefined, refuse)) as never });
    await expect(refused).rejects.toThrow('past its bound');
    expect(answers.held).toBe(0);
  });
});
