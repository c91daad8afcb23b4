import type http from 'node:http';
import { refuse } from '../support/request-body.js';
import { AuthThrottle } from './auth-throttle.js';
import { BasicAuth, type BasicAuthOutcome } from './auth.js';
import { BcryptThread, type Comparer } from './bcrypt-thread.js';
import { clientOf } from './client-address.js';
import { RequestRateLimit } from './rate-limit.js';
import type { HttpRefusal } from '../metrics/http-families.js';
import { WEBHOOK_PATH } from '../sink/routes.js';
import type { HttpTelemetry } from './telemetry.js';
import type { WebConfig } from './web-config.js';

export interface GuardOptions {
  /**
   * Requests a route authenticates itself (the webhook when the sink has credentials of its own:
   * Alertmanager sends one Authorization header, its bearer token). Web-config basic auth does not
   * apply to them.
   */
  selfAuthenticated?: (req: http.IncomingMessage) => boolean;
  telemetry?: HttpTelemetry;
  /** Runs the bcrypt comparisons (default: a thread of the guard's own). */
  compare?: Comparer;
}

const CHALLENGE = 'Basic realm="vigil", charset="UTF-8"';

/**
 * Alertmanager retries a 5xx and drops a 4xx: a notification turned away before its credentials
 * were even checked (too many checks waiting, its address throttled, the rate limit) must be retried.
 */
const isWebhook = (req: http.IncomingMessage) => req.method === 'POST' && (req.url ?? '').split('?', 1)[0]!.endsWith(WEBHOOK_PATH);

/**
 * The web config's response headers and basic auth, in front of every request the server gets:
 * one gate where the server is made, never a check per route. Swapped whole on reload.
 */
export class HttpGuard {
  private auth: BasicAuth;
  /** Outlive reloads: one bcrypt thread, and a guesser's back-off (and a scraper's trust) is not reset by a reload. */
  private readonly bcrypt = new BcryptThread();
  private readonly throttle = new AuthThrottle();
  private readonly compare: Comparer;
  private headers: [string, string][];
  private rate: RequestRateLimit;
  private readonly passed = new WeakSet<http.IncomingMessage>();
  private selfAuthenticated: ((req: http.IncomingMessage) => boolean) | undefined;

  constructor(
    web: WebConfig,
    private readonly opts: GuardOptions = {},
  ) {
    const compare = opts.compare ?? this.bcrypt.compare;
    this.compare = (password, hash, lane) =>
      compare(password, hash, lane).then((outcome) => {
        if (outcome !== 'busy') opts.telemetry?.round();
        return outcome;
      });
    this.auth = this.basicAuth(web);
    this.headers = Object.entries(web.headers);
    this.rate = new RequestRateLimit(web.rateLimit);
    this.selfAuthenticated = opts.selfAuthenticated;
  }

  /** Sets `GuardOptions.selfAuthenticated` once the routes that authenticate themselves are made (they read `authenticated`). */
  exempt(selfAuthenticated: (req: http.IncomingMessage) => boolean): void {
    this.selfAuthenticated = selfAuthenticated;
  }

  /** Takes a reloaded web config's users and headers (what users with an unchanged hash verified is kept). */
  apply(web: WebConfig): void {
    this.auth = this.basicAuth(web, this.auth);
    this.headers = Object.entries(web.headers);
    this.rate = new RequestRateLimit(web.rateLimit);
  }

  private basicAuth(web: WebConfig, previous?: BasicAuth): BasicAuth {
    return new BasicAuth(web.users, { compare: this.compare, throttle: this.throttle, ...(previous ? { previous } : {}) });
  }

  /** Whether basic auth is on: then every request carries verified credentials or was refused. */
  get authRequired(): boolean {
    return this.auth.enabled;
  }

  /** Whether this request passed web-config basic auth (routes with credentials of their own accept that too). */
  readonly authenticated = (req: http.IncomingMessage): boolean => this.passed.has(req);

  /** Runs `next` once the request may go on, or answers it (over the web config's rate_limit, 401, too many checks) itself. */
  handle(req: http.IncomingMessage, res: http.ServerResponse, next: () => void): void {
    for (const [k, v] of this.headers) res.setHeader(k, v);
    if (!this.rate.take()) return this.tooMany(req, res, 'rate_limited', 'Too Many Requests\n', 1);
    const auth = this.auth;
    if (!auth.enabled || this.selfAuthenticated?.(req)) return next();
    const fast = auth.cached(req.headers.authorization);
    if (fast !== undefined) return this.decide(fast, req, res, next);
    const client = clientOf(req.socket.remoteAddress);
    auth.verify(req.headers.authorization, client).then(
      (outcome) => this.decide(outcome, req, res, next, client),
      () => this.decide('wrong', req, res, next, client),
    );
  }

  private decide(outcome: BasicAuthOutcome, req: http.IncomingMessage, res: http.ServerResponse, next: () => void, client = ''): void {
    if (outcome === 'ok') {
      this.passed.add(req);
      return next();
    }
    if (res.destroyed) return;
    if (outcome === 'busy') return this.tooMany(req, res, 'auth_busy', 'too many credential checks at once; try again\n', 1);
    if (outcome === 'throttled') {
      return this.tooMany(req, res, 'auth_throttled', 'too many failed credential checks from this address; try again later\n', this.auth.retryAfter(client));
    }
    this.opts.telemetry?.refuse('unauthorized');
    refuse(req, res, 401, 'Unauthorized\n', { 'www-authenticate': CHALLENGE });
  }

  /** A refusal that a later try may pass: 429, or 503 to a webhook (see `isWebhook`). */
  private tooMany(req: http.IncomingMessage, res: http.ServerResponse, reason: HttpRefusal, text: string, retryAfterSeconds: number): void {
    this.opts.telemetry?.refuse(reason);
    refuse(req, res, isWebhook(req) ? 503 : 429, text, { 'retry-after': String(retryAfterSeconds) });
  }
}
