import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { parseListenAddress } from '../config/listen-address.js';
import { ConnectionCap } from './connection-cap.js';
import type { HttpGuard } from './guard.js';
import type { HttpTelemetry } from './telemetry.js';
import { clientCertAllowed, filesVersion, secureOptions, tlsFiles, type SecureOptions } from './tls-context.js';
import type { TlsSettings } from './web-config.js';

/** Bounds on what one client can hold: slow or idle clients are cut off, never queued behind. */
export interface ServerLimits {
  /** Open connections at most; past it the oldest idle one is closed to make room (see ConnectionCap). */
  maxConnections: number;
  /** From connection to the end of the request headers (slow-loris), TLS handshake included. */
  headerTimeoutMs: number;
  /** From connection to the end of the request body (a trickled body). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Request line and headers together, in bytes; larger ones get 431. */
  maxHeaderBytes: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxConnections: 1000,
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  maxHeaderBytes: 16 * 1024,
};

/** How often certificate files are checked for a rotation. */
const TLS_POLL_MS = 1000;

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
  let tlsSettings = opts.tls;
  const common = {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Timeouts are enforced when connections are checked: every 30 s by default, too coarse.
    connectionsCheckingInterval: Math.min(1000, limits.headerTimeoutMs),
  };
  const guard = opts.guard;
  const handler: http.RequestListener = guard ? (req, res) => guard.handle(req, res, () => app(req, res)) : app;
  // `Expect: 100-continue`: the client waits for a go-ahead before sending its body; a refused one never gets it.
  const checkContinue: http.RequestListener = (req, res) => {
    cap.busy(req, res);
    const go = () => {
      res.writeContinue();
      app(req, res);
    };
    if (guard) guard.handle(req, res, go);
    else go();
  };
  let server: http.Server;
  let secure: SecureOptions | undefined;
  if (tlsSettings) {
    secure = await secureOptions(tlsSettings);
    server = https.createServer({ ...common, ...secure, handshakeTimeout: limits.headerTimeoutMs }, handler);
    server.on('secureConnection', (socket: TLSSocket) => {
      if (!tlsSettings || clientCertAllowed(tlsSettings, socket)) return;
      opts.telemetry?.refuse('client_certificate');
      socket.destroy();
    });
    // A failed handshake (wrong client certificate, TLS 1.0 offered) only closes that connection.
    server.on('tlsClientError', (_err, socket) => {
      opts.telemetry?.refuse('tls_handshake');
      socket.destroy();
    });
    opts.telemetry?.certificate(secure.cert as string | undefined);
  } else {
    server = http.createServer(common, handler);
  }
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  const cap = new ConnectionCap(limits.maxConnections, () => opts.telemetry?.refuse('connection_evicted'));
  server.on('connection', (socket: Socket) => cap.admit(socket));
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => cap.busy(req, res));
  server.on('checkContinue', checkContinue);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });

  let version = tlsSettings ? await filesVersion(tlsFiles(tlsSettings)) : '';
  let polling = false;
  const poll = setInterval(() => {
    if (!tlsSettings || polling) return;
    polling = true;
    void rotate(tlsSettings)
      .catch((e: Error) => opts.log?.warn({ err: e.message }, 'new certificate files not taken (the previous ones stay); retrying when they change again'))
      .finally(() => (polling = false));
  }, TLS_POLL_MS).unref();

  const use = (next: SecureOptions) => {
    const s = server as https.Server;
    s.setSecureContext(next);
    opts.telemetry?.certificate(next.cert as string | undefined);
    // Read per connection by Node's TLS server: a reloaded client_auth_type applies to new connections.
    Object.assign(s, { requestCert: next.requestCert, rejectUnauthorized: next.rejectUnauthorized });
  };

  /** Re-reads the files when any changed; a pair that does not load yet (mid-rotation) is skipped. */
  const rotate = async (t: TlsSettings) => {
    const v = await filesVersion(tlsFiles(t));
    if (v === version) return;
    version = v;
    use(await secureOptions(t));
    opts.log?.info({ files: tlsFiles(t) }, 'certificate files changed: new connections use them');
  };

  const a = server.address() as AddressInfo;
  const shown = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    url: `${tlsSettings ? 'https' : 'http'}://${shown === '0.0.0.0' ? '127.0.0.1' : shown}:${a.port}`,
    server,
    prepareTls: async (t) => {
      if (!t !== !tlsSettings) throw new Error(`tls_server_config: turning TLS ${t ? 'on' : 'off'} needs a restart`);
      if (!t) return () => undefined;
      const [next, v] = await Promise.all([secureOptions(t), filesVersion(tlsFiles(t))]);
      return () => {
        use(next);
        tlsSettings = t;
        version = v;
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(poll);
        // Drain: no new connections, idle ones closed, requests in flight answered, then cut at DRAIN_MS.
        const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
