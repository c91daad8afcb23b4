import { family, single, type Family } from '../metrics/family.js';
import { HistogramData } from '../metrics/histogram.js';

/** vigil's own view of its requests to the upstreams: what the vigil_upstream_* families render. */

export interface UpstreamStats {
  readonly target: string;
  /** `${endpoint}\u0000${code}` → latencies */
  readonly latency: Map<string, HistogramData>;
  readonly retries: Map<string, number>;
  /** Answers byte-identical to the last of their endpoint (and page), by endpoint: their decoding was reused. */
  readonly unchanged: Map<string, number>;
  rateLimited: number;
  /** Seconds its answers waited, headers in, for their turn among the answers in flight. */
  answerWait: number;
  /** Requests to each node of a cluster polled at its own address (the secrets node poll), by node address. */
  readonly nodeRequests: Map<string, number>;
}

export const LATENCY_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

export function newUpstreamStats(target: string): UpstreamStats {
  return { target, latency: new Map(), retries: new Map(), unchanged: new Map(), rateLimited: 0, answerWait: 0, nodeRequests: new Map() };
}

/**
 * One request's outcome; `node` for a request to one node of a cluster, whose 429 says "standby", not
 * "slow down"; `data` when the answer was one of its request's data statuses (the 429 of an unhealthy
 * cluster's autopilot health), not a refusal; `waited`, the seconds its answer waited for its turn to
 * be read (not in `seconds`).
 */
export function observeRequest(
  s: UpstreamStats,
  endpoint: string,
  code: string,
  seconds: number,
  from: { node?: string; data?: boolean; waited?: number } = {},
): void {
  s.answerWait += from.waited ?? 0;
  const key = `${endpoint}\u0000${code}`;
  let h = s.latency.get(key);
  if (!h) s.latency.set(key, (h = new HistogramData(LATENCY_BOUNDS)));
  h.observe(seconds);
  if (from.node !== undefined) s.nodeRequests.set(from.node, (s.nodeRequests.get(from.node) ?? 0) + 1);
  else if (code === '429' && from.data !== true) s.rateLimited += 1;
}

export const upstreamFamilies: readonly Family<UpstreamStats>[] = [
  family<UpstreamStats>({
    name: 'vigil_upstream_request_duration_seconds',
    help: "Duration of requests to upstream targets, by logical endpoint and HTTP status ('none' when no response arrived).",
    type: 'histogram',
    section: 'vigil',
    labels: ['target', 'endpoint', 'code'],
    bounds: LATENCY_BOUNDS,
    samples: (s) =>
      [...s.latency].map(([key, h]) => {
        const [endpoint = '', code = ''] = key.split('\u0000');
        return { labels: { endpoint, code }, buckets: h.counts, sum: h.sum, count: h.count };
      }),
  }),
  family<UpstreamStats>({
    name: 'vigil_upstream_retries_total',
    help: 'Upstream requests retried (412 backoff, 429 waits), by logical endpoint.',
    type: 'counter',
    section: 'vigil',
    labels: ['target', 'endpoint'],
    samples: (s) => [...s.retries].map(([endpoint, value]) => ({ labels: { endpoint }, value })),
  }),
  family<UpstreamStats>({
    name: 'vigil_upstream_unchanged_answers_total',
    help: 'Upstream answers byte-identical to the last one of their endpoint (and page, for a paged listing), by logical endpoint: not decoded, validated or mapped again, their last result reused.',
    type: 'counter',
    section: 'vigil',
    labels: ['target', 'endpoint'],
    samples: (s) => [...s.unchanged].map(([endpoint, value]) => ({ labels: { endpoint }, value })),
  }),
  family<UpstreamStats>({
    name: 'vigil_upstream_node_requests_total',
    help: "Requests to each node of this target's cluster at the node's own address (the node poll's sys/health, seal status and seal backends), by that API address (`address`, as the secrets_node_* series have it); a node that leaves the cluster takes its series along.",
    type: 'counter',
    section: 'vigil',
    labels: ['target', 'address'],
    samples: (s) => [...s.nodeRequests].map(([address, value]) => ({ labels: { address }, value })),
  }),
  family<UpstreamStats>({
    name: 'vigil_upstream_answer_wait_seconds_total',
    help: "Seconds this target's large answers (gossip pools, listings' pages, autopilot) waited, their headers in, for their turn to be read among the answers a collection has in flight: vigil's own wait, left out of vigil_upstream_request_duration_seconds. Rising with the collection duration: the collection is bounded by vigil's memory, not by the upstream.",
    type: 'counter',
    section: 'vigil',
    labels: ['target'],
    samples: single((s) => s.answerWait),
  }),
  family<UpstreamStats>({
    name: 'vigil_upstream_rate_limited_total',
    help: "429 (rate limited) answers received from this upstream target; not the 429 of a standby node's health, which is its role, nor the 429 an unhealthy cluster answers its autopilot health with, which is data.",
    type: 'counter',
    section: 'vigil',
    labels: ['target'],
    samples: single((s) => s.rateLimited),
  }),
];
