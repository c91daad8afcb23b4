import type { UpstreamClient } from '../client.js';
import { decode } from '../decode.js';
import { UpstreamError } from '../errors.js';
import { parseBody, textOf } from '../parse.js';
import { agentNodesPage, type AgentNode } from './nodes.js';

export const NODES = 'agent/nodes';

/** The header that carries the next page's token: the vendor's name, and this API's own. */
const NEXT_TOKEN_HEADERS = ['x-nomad-nexttoken', 'x-scheduler-nexttoken'];

export interface NodeListing {
  /** Token header, as every call to the agent sends it. */
  headers: Record<string, string>;
  /** per_page asked for: a page holding more nodes is refused. */
  perPage: number;
  /** Bound on pages, against a server whose pagination never ends. */
  maxPages: number;
  signal: AbortSignal;
}

/** What a listing does with each node as its page arrives; a page is dropped once tallied. */
export interface NodeTallyOf {
  add(node: AgentNode): void;
}

function nextToken(headers: Record<string, string | string[] | undefined>): string | undefined {
  for (const name of NEXT_TOKEN_HEADERS) {
    const v = headers[name];
    const token = Array.isArray(v) ? v[0] : v;
    if (token) return token;
  }
  return undefined;
}

/**
 * An answer is bounded by what was asked: a page holding more nodes than per_page (a server that
 * ignores paging, or a hostile one) is refused before any node of it is read.
 */
export function decodeNodesPage(body: Uint8Array, page: number, perPage: number): AgentNode[] {
  const doc = decode(textOf(body), NODES);
  if (Array.isArray(doc) && doc.length > perPage) {
    throw new UpstreamError('too_large', `${NODES}: page ${page} holds ${doc.length} nodes, more than the per_page of ${perPage} asked for`);
  }
  return parseBody(agentNodesPage, doc, NODES);
}

/**
 * Every client node of the agent's region, page by page (`per_page`, then the `next_token` the
 * previous answer's header gave), each node handed to `tally` as its page arrives. Any failed page
 * fails the whole listing: a partial listing would read as nodes gone. Returns the pages fetched.
 */
export async function listNodes(client: UpstreamClient, req: NodeListing, tally: NodeTallyOf): Promise<number> {
  const seen = new Set<string>();
  for (let pages = 1, token: string | undefined; ; pages++) {
    const query: Record<string, string> = { per_page: String(req.perPage), ...(token ? { next_token: token } : {}) };
    const res = await client.bytes({ endpoint: NODES, path: '/v1/nodes', query, headers: req.headers, signal: req.signal });
    for (const node of decodeNodesPage(res.body, pages, req.perPage)) tally.add(node);
    const next = nextToken(res.headers);
    if (next === undefined) return pages;
    if (seen.has(next)) throw new UpstreamError('schema', `${NODES}: page ${pages} gives next_token ${JSON.stringify(next)} again: the pages loop`);
    if (pages >= req.maxPages) throw new UpstreamError('too_large', `${NODES}: pagination goes on past max_node_pages ${req.maxPages}`);
    seen.add(next);
    token = next;
  }
}
