import type http from 'node:http';
import type { Router } from 'express';
import type { Logger } from 'pino';
import type { AlertSinkConfig } from '../config-fields/alert-sink.js';
import { capText } from '../support/cap-text.js';
import type { SinkAuth } from './auth.js';
import type { SinkExposure } from './exposure.js';
import { IntakeBudget } from './intake-budget.js';
import { sinkRouter, type SinkCredentialDeps, type SinkRouteDeps } from './routes.js';
import { notificationKey, type AlertStore, type RecordResult } from './store/alert-store.js';
import type { Payload } from './store/payload.js';
import type { WatchdogMonitor } from './watchdog-monitor.js';

export interface SinkIntakeDeps {
  log: Logger;
  now: () => number;
  exposure: SinkExposure;
  /** Whether a request passed web-config basic auth: the read API then needs nothing more. */
  authenticated?: (req: http.IncomingMessage) => boolean;
  pages?: SinkRouteDeps['pages'];
  /** After a notification is stored in `store`: the running sink, if that is still its store, checks its Watchdog and series. */
  stored: (store: AlertStore) => void;
}

/**
 * How a sink takes notifications in and answers its reads: the routes of one config over its store
 * and Watchdog monitor, what a notification received does (stored, the Watchdog told, logged), and
 * the one in-flight budget every config's routes share, so a reload does not let twice the bound in.
 * The service (service.ts) decides which routes are the running ones.
 */
export class SinkIntake {
  private readonly budget = new IntakeBudget(1, 0);

  constructor(private readonly deps: SinkIntakeDeps) {}

  /** The routes of a running sink of this config. */
  router(cfg: AlertSinkConfig, auth: SinkAuth, store: AlertStore, monitor: WatchdogMonitor): Router {
    this.budget.maxCount = cfg.max_in_flight;
    this.budget.maxBytes = cfg.max_in_flight_size;
    return sinkRouter({
      ...this.credentials(auth),
      budget: this.budget,
      bodyLimit: cfg.body_limit,
      limits: { maxDepth: cfg.limits.max_depth, maxAnswerBytes: cfg.limits.max_answer_size },
      store,
      receive: (payload, body, gone) => this.receive(store, monitor, payload, body, gone),
      folded: (counts) => this.deps.exposure.folded(counts),
      pages: this.deps.pages,
      health: () => monitor.health(),
    });
  }

  /** What asking a request's credentials takes: also the routes of a sink whose store is still opening. */
  credentials(auth: SinkAuth): SinkCredentialDeps {
    const { log, exposure } = this.deps;
    return { auth, authenticated: this.deps.authenticated ?? (() => false), log, refused: (reason) => exposure.refused(reason) };
  }

  private async receive(store: AlertStore, monitor: WatchdogMonitor, payload: Payload, body: string, gone: AbortSignal): Promise<RecordResult> {
    const receivedAt = this.deps.now();
    const result = await store.record({ key: notificationKey(payload), receivedAt, payload, body }, gone);
    monitor.received(payload, receivedAt);
    this.deps.log.debug(
      { receiver: capText(payload.receiver, 128), status: payload.status, alerts: payload.alerts.length, id: result.id, duplicate: result.duplicate },
      'notification received',
    );
    this.deps.stored(store);
    return result;
  }
}
