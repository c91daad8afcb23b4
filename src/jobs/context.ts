import type { Logger } from 'pino';
import type { GroupWriter } from '../metrics/render.js';
import { newUpstreamStats, observeRequest, upstreamFamilies, type UpstreamStats } from '../telemetry/upstream-stats.js';
import { renderGroup } from '../metrics/render.js';
import { tlsFamilies } from '../telemetry/tls-families.js';
import { carryCertificate, type TlsObservation } from '../upstream/tls-observer.js';
import { UpstreamClient, type ClientOptions } from '../upstream/client.js';
import type { TargetTls } from '../config-fields/target-tls.js';
import type { ProxySettings } from '../config-fields/target-proxy.js';
import { upstreamTls } from './upstream-tls.js';
import { proxyFor } from '../upstream/proxy-choice.js';
import { RequestSpacer } from '../upstream/request-spacer.js';
import { AnswerMemo } from '../upstream/answer-memo.js';
import type { Turns } from '../support/turns.js';
import type { ByteBudget } from '../support/byte-budget.js';
import type { Offload } from '../offload/pool.js';

/** The fields every target kind shares, after config parsing. */
export interface TargetBase extends ProxySettings {
  name: string;
  address: string;
  timeout: number;
  max_response_size: number;
  tls: TargetTls;
}

/** What building the jobs of one collector needs from the daemon; lives as long as one loaded config. */
export interface BuildContext {
  store: GroupWriter;
  log: Logger;
  /** Upstream stats kept across reloads so counters do not reset for unchanged targets. */
  upstreamStats: Map<string, UpstreamStats>;
  /** Upstream stats groups this config uses; the others belong to removed targets. */
  upstreamKeys: Set<string>;
  /** Every client made for this config; closed when the config is replaced. */
  clients: UpstreamClient[];
  /** Request budgets shared by the targets of this config that spend the same one (same token, same upstream). */
  spacers: Map<string, RequestSpacer>;
  /** Turns of the event loop for decoding and mapping answers, shared by every target. */
  turns: Turns;
  /** The bytes of large answers read and decoded at once, shared by every target (`answersInFlight`). */
  answers: ByteBudget;
  /** Worker threads that decode and map answers too big for one turn of the event loop. */
  offload: Offload;
  /** Upstream stats groups observed since they were last published, with the target they count and how to publish each. */
  unpublished: Map<string, Unpublished>;
}

/** A group of upstream stats observed since it was last published. */
export interface Unpublished {
  readonly target: string;
  readonly publish: () => void;
}

/**
 * Publishes the upstream stats of one target observed since its last job finished: once per
 * committed job of the target rather than once per request, so a listing of many pages re-renders
 * its histograms once. Only the target's own (by name: a namesake of another kind is published
 * with it, one render more): publishing every target's at each commit rendered a cluster's
 * histograms again at every commit of any job while its node poll went on (a third of the
 * allocations of a collection of secrets clusters alone, docs/performance.md).
 */
export function publishUpstreamStats(ctx: Pick<BuildContext, 'unpublished'>, target: string): void {
  for (const [key, u] of ctx.unpublished) {
    if (u.target !== target) continue;
    ctx.unpublished.delete(key);
    u.publish();
  }
}

/** The spacer of one request budget; targets sharing it get the lowest rate any of them sets. */
export function spacerFor(ctx: BuildContext, budget: string, perSecond: number): RequestSpacer {
  const existing = ctx.spacers.get(budget);
  if (existing) {
    existing.limitTo(perSecond);
    return existing;
  }
  const spacer = new RequestSpacer({ perSecond });
  ctx.spacers.set(budget, spacer);
  return spacer;
}

/**
 * One keep-alive pool per target (and one per node of a cluster polled at its own address, `node`), its requests observed into vigil_upstream_* under the group
 * `vigil/upstream/<kind>/<target>` (published by `publishUpstreamStats`).
 */
export function clientFor(
  kind: string,
  target: TargetBase,
  ctx: BuildContext,
  extra: Pick<ClientOptions, 'retry' | 'beforeAttempt' | 'onResponse' | 'onTls'> & { node?: string } = {},
): UpstreamClient {
  const { node, onTls, ...options } = extra;
  const { key, stats: s, publish } = upstreamStatsOf(kind, target, ctx);
  let lastTls: TlsObservation | undefined;
  const client = new UpstreamClient({
    address: node ?? target.address,
    timeoutMs: target.timeout,
    maxResponseBytes: target.max_response_size,
    tls: upstreamTls(target, ctx.log),
    proxy: proxyFor(new URL(node ?? target.address), target),
    ...options,
    beforeDecode: () => ctx.turns.take(),
    observe: (endpoint, code, seconds, data, waited) => {
      observeRequest(s, endpoint, code, seconds, { node, data, waited });
      ctx.unpublished.set(key, { target: target.name, publish });
    },
    // A node's certificate is watched by whoever polls the node (`onTls`, under its own label `address`).
    onTls:
      node !== undefined
        ? onTls
        : (o) => {
            const seen = (lastTls = carryCertificate(o, lastTls));
            // Under the target's upstream key, so a removed target's group goes with it.
            ctx.unpublished.set(`${key}/tls`, {
              target: target.name,
              publish: () => ctx.store.replace(`${key}/tls`, renderGroup(tlsFamilies, seen, { target: target.name })),
            });
          },
    onRetry: (endpoint, err) => {
      s.retries.set(endpoint, (s.retries.get(endpoint) ?? 0) + 1);
      ctx.log.debug({ target: target.name, endpoint, reason: err.reason }, 'retrying upstream request');
    },
  });
  ctx.clients.push(client);
  return client;
}

/** A target's upstream stats (kept across reloads), under their group `vigil/upstream/<kind>/<target>`, and how to publish them. */
function upstreamStatsOf(kind: string, target: Pick<TargetBase, 'name'>, ctx: BuildContext): { key: string; stats: UpstreamStats; publish: () => void } {
  const key = `vigil/upstream/${kind}/${target.name}`;
  ctx.upstreamKeys.add(key);
  let stats = ctx.upstreamStats.get(key);
  if (!stats) ctx.upstreamStats.set(key, (stats = newUpstreamStats(target.name)));
  const s = stats;
  // Rendered when the body is next laid out, from the stats as they are then: each of a target's
  // jobs publishes them as it finishes (a secrets cluster has eight), and they were rendered whole
  // each time, hundreds of thousands of histogram lines a collection at a million series.
  return { key, stats: s, publish: () => ctx.store.replaceLater(key, () => renderGroup(upstreamFamilies, s, { target: target.name })) };
}

/**
 * The target's memo of its last answers (see `AnswerMemo`), each reuse counted in
 * vigil_upstream_unchanged_answers_total. Made with the target's jobs, so a reload drops it with them.
 */
export function answerMemoFor(kind: string, target: Pick<TargetBase, 'name'>, ctx: BuildContext): AnswerMemo {
  const { key, stats, publish } = upstreamStatsOf(kind, target, ctx);
  return new AnswerMemo((endpoint) => {
    stats.unchanged.set(endpoint, (stats.unchanged.get(endpoint) ?? 0) + 1);
    ctx.unpublished.set(key, { target: target.name, publish });
  });
}
