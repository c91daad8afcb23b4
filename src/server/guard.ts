import type http from 'node:http';
import { refuse } from '../support/request-body.js';
import { AuthThrottle, clientOf } from './auth-throttle.js';
import { BasicAuth, type BasicAuthOutcome } from './auth.js';
import { BcryptThread } from './bcrypt-thread.js';
import { RequestRateLimit } from './rate-limit.js';
import type { HttpRefusal } from '../metrics/http-families.js';
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
}

const CHALLENGE = 'Basic realm="vigil", charset="UTF-8"';

const REFUSALS: Record<Exclude<BasicAuthOutcome, 'ok'>, HttpRefusal> = {
  missing: 'unauthorized',
  wrong: 'unauthorized',
  busy: 'auth_busy',
  throttled: 'auth_throttled',
};

/**
 * The web config's response headers and basic auth, in front of every request the server gets:
 * one gate where the server is made, never a check per route. Swapped whole on reload.
 */
export class HttpGuard {
  private auth: BasicAuth;
  /** Outlive reloads: one bcrypt thread, and a guesser's back-off is not reset by a reload. */
  private readonly bcrypt = new BcryptThread();
  private readonly throttle = new AuthThrottle();
  private headers: [string, string][];
  private rate: RequestRateLimit;
  private readonly passed = new WeakSet<http.IncomingMessage>();
  private selfAuthenticated: ((req: http.IncomingMessage) => boolean) | undefined;

  constructor(
    web: WebConfig,
    private readonly opts: GuardOptions = {},
  ) {
    this.auth = this.basicAuth(web);
    this.headers = Object.entries(web.headers);
    this.rate = new RequestRateLimit(web.rateLimit);
    this.selfAuthenticated = opts.selfAuthenticated;
  }

  /** Sets `GuardOptions.selfAuthenticated` once the routes that authenticate themselves are made (they read `authenticated`). */
  exempt(selfAuthenticated: (req: http.IncomingMessage) => boolean): void {
    this.selfAuthenticated = selfAuthenticated;
  }

  /** Takes a reloaded web config's users and headers (the verification cache starts over). */
  apply(web: WebConfig): void {
    this.auth = this.basicAuth(web);
    this.headers = Object.entries(web.headers);
    this.rate = new RequestRateLimit(web.rateLimit);
  }

  private basicAuth(web: WebConfig): BasicAuth {
    return new BasicAuth(web.users, { compare: this.bcrypt.compare, throttle: this.throttle });
  }

  /** Whether basic auth is on: then every request carries verified credentials or was refused. */
  get authRequired(): boolean {
    return this.auth.enabled;
  }

  /** Whether this request passed web-config basic auth (routes with credentials of their own accept that too). */
  readonly authenticated = (req: http.IncomingMessage): boolean => this.passed.has(req);

  /** Runs `next` once the request may go on, or answers it (429 over the web config's rate_limit, 401, 429) itself. */
  handle(req: http.IncomingMessage, res: http.ServerResponse, next: () => void): void {
    for (const [k, v] of this.headers) res.setHeader(k, v);
    if (!this.rate.take()) {
      this.opts.telemetry?.refuse('rate_limited');
      return refuse(req, res, 429, 'Too Many Requests\n', { 'retry-after': '1' });
    }
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
    this.opts.telemetry?.refuse(REFUSALS[outcome]);
    if (outcome === 'busy') return refuse(req, res, 429, 'too many credential checks at once; try again\n', { 'retry-after': '1' });
    if (outcome === 'throttled') {
      return refuse(req, res, 429, 'too many failed credential checks from this address; try again later\n', {
        'retry-after': String(this.auth.retryAfter(client)),
      });
    }
    refuse(req, res, 401, 'Unauthorized\n', { 'www-authenticate': CHALLENGE });
  }
}
