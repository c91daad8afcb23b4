import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher, Pool } from 'undici';
import { undici } from './undici.js';
import { timerMs } from '../config-fields/units.js';
import { attemptSignal, readBody, turnToRead } from './attempt-bounds.js';
import type { Permit } from '../support/byte-budget.js';
import { decode, tryJson } from './decode.js';
import { textOf } from './parse.js';
import { UpstreamError, errorBodyMessage, reasonForStatus, toUpstreamError } from './errors.js';
import { hasEscapes, printable, redactText, redactValue, requestSecrets } from './redact.js';
import { redactReceived, secretsKey } from './redact-bytes.js';
import { Received } from './received.js';
import { refuseUnreadable } from './unreadable.js';
import { sendAgainOnce } from './closed-unanswered.js';
import { retryAfterMs, type RetryPolicy } from './retry.js';
import type { TlsObservation } from './tls-observer.js';
import { upstreamConnector, type UpstreamTls } from './connector.js';
import { proxyAuthorization, proxySecrets } from './proxy-choice.js';
import { ProxyTunnel } from './proxy-tunnel.js';
import { proxyError, proxyFailure, proxyName, type ProxyName } from './proxy-failure.js';

/** Bound on an answer's status line and headers together (Node's own default, said out loud). */
export const MAX_RESPONSE_HEADER_BYTES = 16 * 1024;

export interface ClientOptions {
  /** Base URL; a path prefix in it is kept (`https://host/prefix` → `/prefix/v1/...`). */
  address: string;
  /** Bounds connect, headers and body of each attempt, and each attempt as a whole. */
  timeoutMs: number;
  maxResponseBytes: number;
  tls?: UpstreamTls;
  /** The proxy requests go through (CONNECT for https targets, absolute-form requests for http ones); undefined: directly. */
  proxy?: URL | undefined;
  retry?: RetryPolicy;
  /**
   * Runs before every attempt (request spacing below an upstream's rate limit). Its wait does not
   * count against `timeoutMs`: a queued request has not reached the upstream yet.
   */
  beforeAttempt?: (signal: AbortSignal) => Promise<void>;
  /**
   * Awaited once a body is read, before it is decoded: decoding, and what callers do with the value
   * right away, run in the turn of the event loop it resolves in (see `Turns`). Not for a body the
   * caller knows again (`RequestSpec.knownClean`): nothing is decoded, and its turn of the answers in
   * flight (`admit`) goes back at once rather than after every step queued before it.
   */
  beforeDecode?: () => Promise<void>;
  /** Called for every answer, error statuses included, with its headers (rate-limit headers). */
  onResponse?: (endpoint: string, status: number, headers: Record<string, string | string[] | undefined>) => void;
  /**
   * Called for every attempt with its logical endpoint, status code ('none' without a response) and
   * duration, and whether the answer was one of the request's data statuses (an unhealthy cluster's 429 is no rate limit);
   * the duration leaves out `waitedSeconds`, vigil's own wait for a turn to read the answer (`RequestSpec.admit`).
   */
  observe?: (endpoint: string, code: string, seconds: number, data: boolean, waitedSeconds: number) => void;
  /** Called before a retry is slept on. */
  onRetry?: (endpoint: string, err: UpstreamError) => void;
  /** Called after every TLS handshake with what the certificate chain showed (https only). */
  onTls?: (o: TlsObservation) => void;
}

export interface RequestSpec {
  /** Logical endpoint name, bounded in number: the `endpoint` label of request metrics. */
  endpoint: string;
  method?: Dispatcher.HttpMethod;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  /** Statuses >= 400 whose JSON body is data rather than an error (an unhealthy agent's 500). */
  dataStatuses?: readonly number[];
  signal?: AbortSignal;
  /**
   * Whether the caller holds a body of this SHA-256 (taken as it arrived) found free of these
   * secrets (`secretsKey`): such a body is not searched for them again (`bytes` only).
   */
  knownClean?: (digest: Buffer, secrets: string) => boolean;
  /**
   * A turn to read the answer, asked for once its headers have come (so an upstream that never
   * answers holds none) with the length they declare, if any; the attempt's time stops while it is
   * waited for (a promise).
   * The permit goes with the body (`bytes` only): whoever gets it releases it (`Received.release`).
   */
  admit?: (declared: number | undefined, signal: AbortSignal) => Permit | Promise<Permit>;
}

export interface JsonResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
}

/**
 * A successful answer's body as received, for a caller that decodes it elsewhere (off the
 * collection thread) or knows it again by its digest (taken as it arrived), unjoined until asked.
 */
export interface BytesResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Received;
}

/** How a body becomes what the caller gets: from a success's bytes, or from a data status's decoded JSON. */
interface BodyOf<B> {
  /** Whether a success's body is digested as it arrives. */
  digest: boolean;
  fromBytes: (body: Received, secrets: readonly string[]) => B;
  /** Whether the caller holds a success's body as it is, searched for these secrets: nothing to decode. */
  known?: (body: Received, secrets: readonly string[]) => boolean;
  fromValue: (value: unknown) => B;
}

/** The shape of each target's connection pool: what a benchmark fetching the same answers with the same client must hold to. */
export const POOL_SHAPE = { connections: 4, pipelining: 1, keepAliveTimeout: 30_000 } as const;

/** One keep-alive connection pool to one upstream target, with timeouts, a size cap and retries. */
export class UpstreamClient {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly tunnel: ProxyTunnel | undefined;
  /** A plain-http target behind a proxy: the target's origin and host, and the proxy's credentials, sent with each request; the proxy's name. */
  private readonly forward: { origin: string; headers: Record<string, string>; proxy: ProxyName } | undefined;
  /**
   * The proxy's credentials in every form, hunted in every answer and error of this client besides
   * each request's own secrets: a proxy, or the hop behind it, may echo Proxy-Authorization.
   */
  private readonly proxySecrets: readonly string[];

  constructor(private readonly opts: ClientOptions) {
    const url = new URL(opts.address);
    const https = url.protocol === 'https:';
    const proxy = opts.proxy;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.proxySecrets = proxy ? proxySecrets(proxy) : [];
    this.tunnel = proxy && https ? new ProxyTunnel(proxy, timerMs(opts.timeoutMs), this.proxySecrets) : undefined;
    const authorization = proxy && proxyAuthorization(proxy);
    this.forward =
      proxy && !https
        ? { origin: url.origin, headers: { host: url.host, ...(authorization ? { 'proxy-authorization': authorization } : {}) }, proxy: proxyName(proxy) }
        : undefined;
    this.pool = new (undici().Pool)(this.forward && proxy ? proxy.origin : url.origin, {
      ...POOL_SHAPE,
      // Clamped like every timer: a `timeout: 30d` must not wrap around into an immediate timeout.
      headersTimeout: timerMs(opts.timeoutMs),
      maxHeaderSize: MAX_RESPONSE_HEADER_BYTES,
      bodyTimeout: timerMs(opts.timeoutMs),
      connect: https
        ? upstreamConnector({ timeoutMs: timerMs(opts.timeoutMs), tls: opts.tls ?? { insecureSkipVerify: false }, tunnel: this.tunnel, onTls: opts.onTls })
        : { timeout: timerMs(opts.timeoutMs) },
    });
  }

  /** Sends a request, retrying what the retry policy allows; throws UpstreamError. */
  json(spec: RequestSpec): Promise<JsonResponse> {
    return this.send(spec, {
      digest: false,
      fromBytes: (received, secrets) => {
        const text = redactText(textOf(received.bytes()), secrets);
        const body = decode(text, spec.endpoint);
        return secrets.length && hasEscapes(text) ? redactValue(body, secrets) : body;
      },
      fromValue: (v) => v,
    });
  }

  /**
   * As `json`, but a successful answer's body is returned undecoded, the request's secrets
   * replaced in it as `json` does (error answers are handled alike).
   */
  bytes(spec: RequestSpec): Promise<BytesResponse> {
    const known = (body: Received, secrets: readonly string[]) => spec.knownClean?.(body.digest(), secretsKey(secrets)) === true;
    const fromBytes = (body: Received, secrets: readonly string[]): Received => {
      if (!known(body, secrets)) return body.passPermitTo(redactReceived(body, secrets));
      body.cleanOf = secretsKey(secrets);
      return body;
    };
    return this.send(spec, { digest: true, fromBytes, known, fromValue: (v) => Received.of(Buffer.from(JSON.stringify(v))) });
  }

  private async send<B>(spec: RequestSpec, success: BodyOf<B>): Promise<{ status: number; headers: JsonResponse['headers']; body: B }> {
    let sentAgain = false;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(spec, success);
      } catch (e) {
        const err = toUpstreamError(e);
        if (err.unanswered && !sentAgain && !spec.signal?.aborted) {
          [sentAgain, attempt] = [true, attempt - 1];
          this.opts.onRetry?.(spec.endpoint, err);
          continue;
        }
        const delay = this.opts.retry?.delayFor(attempt, err);
        if (delay === undefined || spec.signal?.aborted) throw err;
        this.opts.onRetry?.(spec.endpoint, err);
        await sleep(timerMs(delay), undefined, spec.signal ? { signal: spec.signal } : {}).catch(() => {
          throw err;
        });
      }
    }
  }

  /** What is hunted in a request's answers and errors: its own secrets, and the proxy's credentials. */
  private secretsOf(spec: RequestSpec): string[] {
    const own = requestSecrets(spec.headers, spec.body);
    return this.proxySecrets.length ? [...own, ...this.proxySecrets] : own;
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.destroy(), this.tunnel?.close()]);
  }

  /** The request as sent; behind a forwarding proxy, a failure of the connection to the proxy is the proxy's. */
  private async dispatch(spec: RequestSpec, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    const qs = spec.query ? `?${new URLSearchParams(spec.query).toString()}` : '';
    const hasBody = spec.body !== undefined;
    try {
      return await this.pool.request({
        method: spec.method ?? 'GET',
        path: `${this.forward?.origin ?? ''}${this.basePath}${spec.path}${qs}`,
        // Redirects are never followed (undici's Pool does not), and nothing compressed is asked for.
        headers: {
          accept: 'application/json',
          'accept-encoding': 'identity',
          ...(hasBody ? { 'content-type': 'application/json' } : {}),
          ...this.forward?.headers,
          ...spec.headers,
        },
        ...(hasBody ? { body: JSON.stringify(spec.body) } : {}),
        signal,
      });
    } catch (e) {
      throw (this.forward && proxyFailure(e, this.forward.proxy, spec.endpoint)) || e;
    }
  }

  /** An error status as an error, its body's message shown (redacted first, `text`). */
  private statusError(endpoint: string, res: Dispatcher.ResponseData, text: string): UpstreamError {
    // A proxy's own refusal is no word of the upstream's.
    if (res.statusCode === 407 && this.forward) {
      return proxyError(this.forward.proxy, 'HTTP 407: it refused vigil (check the credentials of proxy_url)', { status: 407, endpoint });
    }
    const detail = printable(errorBodyMessage(text));
    const err = new UpstreamError(reasonForStatus(res.statusCode), `${endpoint}: HTTP ${res.statusCode}${detail ? `: ${detail}` : ''}`, res.statusCode);
    err.retryAfterMs = retryAfterMs(res.headers);
    return err;
  }

  private async attempt<B>(spec: RequestSpec, success: BodyOf<B>): Promise<{ status: number; headers: JsonResponse['headers']; body: B }> {
    await this.opts.beforeAttempt?.(spec.signal ?? new AbortController().signal);
    const bound = attemptSignal(spec.signal, this.opts.timeoutMs);
    const signal = bound.signal;
    const started = performance.now();
    let ended: number | undefined;
    let code = 'none';
    let asData = false;
    const secrets = this.secretsOf(spec);
    try {
      const res = await this.dispatch(spec, signal);
      code = String(res.statusCode);
      this.opts.onResponse?.(spec.endpoint, res.statusCode, res.headers);
      refuseUnreadable(res, spec.endpoint);
      const permit = await turnToRead(spec.admit, res, bound);
      const received = await readBody(res, this.opts.maxResponseBytes, spec.endpoint, success.digest && res.statusCode < 400, permit);
      ended = performance.now();
      bound.dispose();
      try {
        if (res.statusCode >= 400 || !success.known?.(received, secrets)) await this.opts.beforeDecode?.();
        if (res.statusCode >= 400) {
          const text = redactText(textOf(received.bytes()), secrets);
          received.release();
          // A data status with a JSON body is data; without one it is what it says: an error.
          const data = spec.dataStatuses?.includes(res.statusCode) ? tryJson(text) : undefined;
          asData = data !== undefined;
          if (data) return { status: res.statusCode, headers: res.headers, body: success.fromValue(data.value) };
          throw this.statusError(spec.endpoint, res, text);
        }
        return { status: res.statusCode, headers: res.headers, body: success.fromBytes(received, secrets) };
      } catch (e) {
        received.release();
        throw e;
      }
    } catch (e) {
      // A timeout surfaces as the abort reason; name it by what ran out.
      if (bound.timedOut() && !(e instanceof UpstreamError)) {
        throw new UpstreamError('timeout', `${spec.endpoint}: no complete answer within ${this.opts.timeoutMs} ms`);
      }
      const err = toUpstreamError(e);
      err.unanswered = code === 'none' && sendAgainOnce(e, spec.method);
      if (!(e instanceof UpstreamError)) err.message = `${spec.endpoint}: ${err.message}`;
      err.message = redactText(err.message, secrets);
      throw err;
    } finally {
      bound.dispose();
      // vigil's own wait for a turn to read is no time of the upstream's
      this.opts.observe?.(spec.endpoint, code, ((ended ?? performance.now()) - started - bound.pausedMs) / 1000, asData, bound.pausedMs / 1000);
    }
  }
}
