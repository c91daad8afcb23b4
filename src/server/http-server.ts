import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { parseListenAddress } from '../config-fields/listen-address.js';
import { ConnectionCap } from './connection-cap.js';
import type { HttpGuard } from './guard.js';
import type { HttpTelemetry } from './telemetry.js';
import { rotateCertificates, type CurrentTls } from './certificate-rotation.js';
import { clientCertAllowed, secureOptions } from './tls-context.js';
import type { TlsSettings } from './web-config.js';

/** Bounds on what one client can hold: slow or idle clients are cut off, never queued behind. */
export interface ServerLimits {
  /** Open connections at most; past it the oldest idle one, else the longest-stuck answer's, is closed to make room (see ConnectionCap). */
  maxConnections: number;
  /** From connection to the end of the request headers (slow-loris), TLS handshake included. */
  headerTimeoutMs: number;
  /** From connection to the end of the request body (a trickled body). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Request line and headers together, in bytes; larger ones get 431. */
  maxHeaderBytes: number;
  /** An answer whose client takes none of it for this long is cut (progress is timed, not the whole answer). */
  writeTimeoutMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxConnections: 1000,
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  maxHeaderBytes: 16 * 1024,
  // Longer than a scrape timeout: a scraper that gives up closes its connection itself; this is for clients that never do.
  writeTimeoutMs: 30_000,
};

export interface ServeOptions {
  tls?: TlsSettings;
  limits?: ServerLimits;
  guard?: HttpGuard;
  log?: Logger;
  telemetry?: HttpTelemetry;
}

export interface RunningHttp {
  url: string;
  server: http.Server;
  /**
   * Checks a reloaded web config's TLS settings (rejecting, naming the key, when they cannot be
   * used) and returns what applies them: a reload applies nothing until all of it is good.
   */
  prepareTls(tls: TlsSettings | undefined): Promise<() => void>;
  close(): Promise<void>;
}

/** How long stopping waits for requests in flight (a webhook being stored) before cutting them. */
export const DRAIN_MS = 5000;

/**
 * Makes the server: HTTP or HTTPS per the web config, the guard (headers, basic auth) in front of
 * every request, and the limits. Certificate files are re-read when they change.
 */
export async function listen(app: http.RequestListener, address: string, opts: ServeOptions = {}): Promise<RunningHttp> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const { host, port } = parseListenAddress(address);
  const tls = opts.tls ? { settings: opts.tls } : undefined;
  const server = tls ? await createHttpsServer(app, limits, tls, opts) : http.createServer(serverOptions(limits), guarded(app, opts.guard));
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  const cap = capConnections(server, app, limits, opts);
  await bind(server, port, host).catch((e: unknown) => {
    cap.stop();
    throw e;
  });
  const rotation = tls ? await rotateCertificates(server as https.Server, tls, opts) : undefined;
  return {
    url: urlOf(server, tls !== undefined),
    server,
    prepareTls: async (t) => {
      if (!t !== !tls) throw new Error(`tls_server_config: turning TLS ${t ? 'on' : 'off'} needs a restart`);
      return t && rotation ? rotation.prepare(t) : () => undefined;
    },
    close: () => {
      rotation?.stop();
      return drain(server).finally(() => cap.stop());
    },
  };
}

function serverOptions(limits: ServerLimits): http.ServerOptions {
  return {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Timeouts are enforced when connections are checked: every 30 s by default, too coarse.
    connectionsCheckingInterval: Math.min(1000, limits.headerTimeoutMs),
  };
}

function guarded(app: http.RequestListener, guard: HttpGuard | undefined): http.RequestListener {
  return guard ? (req, res) => guard.handle(req, res, () => app(req, res)) : app;
}

/** HTTPS with the client-certificate check and the refusals counted; a reload changes `tls.settings`. */
async function createHttpsServer(app: http.RequestListener, limits: ServerLimits, tls: CurrentTls, opts: ServeOptions): Promise<https.Server> {
  const secure = await secureOptions(tls.settings);
  const server = https.createServer({ ...serverOptions(limits), ...secure, handshakeTimeout: limits.headerTimeoutMs }, guarded(app, opts.guard));
  server.on('secureConnection', (socket: TLSSocket) => {
    if (clientCertAllowed(tls.settings, socket)) return;
    opts.telemetry?.refuse('client_certificate');
    socket.destroy();
  });
  // A failed handshake (wrong client certificate, TLS 1.0 offered) only closes that connection.
  server.on('tlsClientError', (_err, socket) => {
    opts.telemetry?.refuse('tls_handshake');
    socket.destroy();
  });
  opts.telemetry?.certificate(secure.cert as string | undefined);
  return server;
}

/** Puts every connection and request under the cap, `Expect: 100-continue` ones included. */
function capConnections(server: http.Server, app: http.RequestListener, limits: ServerLimits, opts: ServeOptions): ConnectionCap {
  const cap = new ConnectionCap(limits.maxConnections, {
    writeTimeoutMs: limits.writeTimeoutMs,
    onEvict: () => opts.telemetry?.refuse('connection_evicted'),
    onStalled: () => opts.telemetry?.stalled(),
  });
  server.on('connection', (socket: Socket) => cap.admit(socket));
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => cap.busy(req, res));
  // The client waits for a go-ahead before sending its body; a refused one never gets it.
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    cap.busy(req, res);
    const go = () => {
      res.writeContinue();
      app(req, res);
    };
    if (opts.guard) opts.guard.handle(req, res, go);
    else go();
  });
  return cap;
}

function bind(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

function urlOf(server: http.Server, secure: boolean): string {
  const a = server.address() as AddressInfo;
  const shown = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return `${secure ? 'https' : 'http'}://${shown === '0.0.0.0' ? '127.0.0.1' : shown}:${a.port}`;
}

/** Drain: no new connections, idle ones closed, requests in flight answered, then cut at DRAIN_MS. */
function drain(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
    server.close(() => {
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}
