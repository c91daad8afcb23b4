import type http from 'node:http';
import express, { type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Daemon } from './daemon.js';
import { CONTENT_TYPE } from './metrics/render.js';
import { deflatePiece, gzipMember, type Deflated } from './metrics/gzip-stream.js';
import { EOF_LINE, OPENMETRICS_CONTENT_TYPE, toOpenMetrics } from './metrics/openmetrics.js';
import { negotiateFormat } from './server/negotiate.js';
import type { ExpositionFormat } from './metrics/snapshot.js';
import { errorAnswer } from './server/error-answer.js';
import { lifecycleRouter } from './server/lifecycle.js';
import { uiRoutes } from './server/ui-routes.js';
import { writeInSlices } from './server/write-in-slices.js';
import { VERSION } from './version.js';

export interface ServerDeps {
  daemon: Pick<Daemon, 'snapshot' | 'readiness' | 'targets' | 'collectNow'>;
  /** Reloads the config from its file; rejects with the reason when the new one is bad. */
  reload: () => Promise<void>;
  processMetrics: () => Promise<string>;
  log: Logger;
  /** `--web.enable-lifecycle`: POST /-/reload and /-/collect work only with it (else 403). */
  enableLifecycle?: boolean;
  /** `--web.collect-min-interval` (ms): see lifecycle.ts. */
  collectMinInterval?: number;
  /** More routes (the alert sink's), tried after vigil's own and before the 404. */
  routes?: RequestHandler;
  /** `--web.telemetry-path`: where the metrics are served [default: /metrics]. */
  telemetryPath?: string;
  /** `--web.route-prefix`: every endpoint is served under it ("/" or "/vigil") [default: /]. */
  routePrefix?: string;
  /** The path the pages' links start from (`--web.external-url`'s, ending in "/") [default: the route prefix]. */
  linkBase?: string;
  /** The status pages' compiled front end, served under /ui/ [default: the build's, when there is one]. */
  uiAssets?: string;
}

/** No inline script or style, nothing from elsewhere, no framing. */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/**
 * Whether to answer with the gzip body: when the client names gzip (or `*`) without `q=0`. The body
 * is one gzip member (`gzip-stream.ts`), which every reader takes whole, browsers included.
 */
export function acceptsGzip(req: Pick<http.IncomingMessage, 'headers'>): boolean {
  const offered = new Map<string, number>();
  for (const item of String(req.headers['accept-encoding'] ?? '').split(',')) {
    const [coding = '', ...params] = item.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (coding) offered.set(coding, q === undefined ? 1 : Number(q));
  }
  return (offered.get('gzip') ?? offered.get('*') ?? 0) > 0;
}

/** How stale the runtime metrics may be: under any scrape rate they are rendered at most this often. */
const RUNTIME_MAX_AGE_MS = 1000;

interface Encoded {
  identity: Buffer;
  deflated: Deflated;
}

const encoded = (text: string): Encoded => {
  const identity = Buffer.from(text);
  return { identity, deflated: deflatePiece(identity) };
};

/** The runtime metrics in both formats (OpenMetrics with its `# EOF`), plain and gzip. */
interface RuntimeBody {
  text: Encoded;
  openmetrics: Encoded;
}

/** The runtime metrics as sent, plain and gzip, shared by the scrapes of one second. */
function runtimeBody(render: () => Promise<string>): () => Promise<RuntimeBody> {
  let cached: { at: number; body: Promise<RuntimeBody> } | undefined;
  return () => {
    const now = performance.now();
    if (!cached || now - cached.at >= RUNTIME_MAX_AGE_MS) {
      const body = render().then((text) => ({ text: encoded(text), openmetrics: encoded(toOpenMetrics(text) + EOF_LINE) }));
      cached = { at: now, body };
      body.catch(() => (cached = undefined));
    }
    return cached.body;
  };
}

/**
 * `/metrics` answers from the snapshot assembled when collections finished (no upstream I/O, no
 * re-rendering), written as the snapshot's buffers; the gzip body is one gzip member framing the
 * snapshot's cached deflate data and the runtime metrics' own.
 */
function metricsHandler(deps: ServerDeps): (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> {
  const runtime = runtimeBody(deps.processMetrics);
  // The gzip body of the last snapshot and runtime tail, framed once: both change at most once a
  // second or a collection, and every scrape in between writes the same bytes.
  const framed = new Map<ExpositionFormat, { head: Deflated; tail: Encoded; body: Buffer }>();
  const gzipBody = (format: ExpositionFormat, head: Deflated, tail: Encoded): Buffer => {
    const last = framed.get(format);
    if (last?.head === head && last.tail === tail) return last.body;
    const body = Buffer.concat(gzipMember([head, tail.deflated]));
    framed.set(format, { head, tail, body });
    return body;
  };
  return async (req, res) => {
    // Both formats are assembled when a collection commits: choosing one renders nothing.
    const format = negotiateFormat(req.headers.accept);
    const snap = deps.daemon.snapshot(format);
    const gzip = acceptsGzip(req);
    const tail = (await runtime())[format];
    const body = gzip ? [gzipBody(format, await snap.deflated(), tail)] : [...snap.buffers(), tail.identity];
    res.writeHead(200, {
      'content-type': format === 'openmetrics' ? OPENMETRICS_CONTENT_TYPE : CONTENT_TYPE,
      vary: 'Accept, Accept-Encoding',
      'content-length': body.reduce((n, b) => n + b.length, 0),
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    // A writev a slice, rather than a copy of the whole body; the slices let the write timeout see a slow reader's progress.
    writeInSlices(res, body);
  };
}

const isMetrics = (req: http.IncomingMessage, path: string) =>
  (req.method === 'GET' || req.method === 'HEAD') && (req.url === path || req.url?.startsWith(`${path}?`) === true);

/**
 * The HTTP face of vigil. A scrape of `/metrics`, the one path under load, is answered by Node's
 * `http` directly: at 120k series a router's work per request costs more than serving the cached
 * gzip body. Everything else (and `/metrics` spelled otherwise) goes through express.
 */
export function createApp(deps: ServerDeps): http.RequestListener {
  const { app, metrics, telemetryPath } = createExpressApp(deps);
  const prefix = deps.routePrefix ?? '/';
  const served = prefix === '/' ? app : underPrefix(prefix, app, deps.log);
  const metricsPath = prefix === '/' ? telemetryPath : `${prefix}${telemetryPath}`;
  return (req, res) => {
    if (!isMetrics(req, metricsPath)) return void served(req, res);
    metrics(req, res).catch((e: unknown) => {
      deps.log.error({ err: (e as Error).message }, 'cannot answer /metrics');
      if (res.headersSent) res.destroy();
      else res.writeHead(500, { 'content-type': 'text/plain' }).end('cannot render metrics\n');
    });
  };
}

/** vigil's routes (every endpoint but the sink's, which `deps.routes` brings), in one express app. */
export function createExpressApp(deps: ServerDeps): { app: express.Express; metrics: ReturnType<typeof metricsHandler>; telemetryPath: string } {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const metrics = metricsHandler(deps);
  app.use((_req, res, next) => {
    // The pages load only their own script and stylesheet; a web config's own policy wins.
    if (!res.hasHeader('content-security-policy')) res.setHeader('content-security-policy', CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    next();
  });

  const telemetryPath = deps.telemetryPath ?? '/metrics';
  app.get(telemetryPath, (req, res) => metrics(req, res));

  // /-/healthy and /-/ready as every Prometheus component serves them; /healthz and /readyz as Kubernetes probes know them.
  app.get(['/healthz', '/-/healthy'], (_req, res) => {
    res.type('text/plain').send('OK\n');
  });

  app.get(['/readyz', '/-/ready'], (_req, res) => {
    const r = deps.daemon.readiness();
    res.status(r.ready ? 200 : 503).json(r);
  });

  app.get('/api/v1/targets', (_req, res) => {
    res.json({ targets: deps.daemon.targets() });
  });

  app.use(
    lifecycleRouter({
      enabled: deps.enableLifecycle ?? false,
      reload: deps.reload,
      collectNow: () => deps.daemon.collectNow(),
      ...(deps.collectMinInterval !== undefined ? { collectMinIntervalMs: deps.collectMinInterval } : {}),
    }),
  );

  app.use(uiRoutes({ daemon: deps.daemon, version: VERSION, metricsPath: telemetryPath, base: linkBase(deps), assets: deps.uiAssets }));

  if (deps.routes) app.use(deps.routes);

  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  app.use(errorAnswer(deps.log));
  return { app, metrics, telemetryPath };
}

/** The path the pages' links start from: the external URL's, else the route prefix, ending in "/". */
export function linkBase(deps: Pick<ServerDeps, 'routePrefix' | 'linkBase'>): string {
  const base = deps.linkBase ?? deps.routePrefix ?? '/';
  return base.endsWith('/') ? base : `${base}/`;
}

/** Every route under `prefix`; `/` sends browsers there, as Prometheus does; anything else is 404. */
function underPrefix(prefix: string, app: express.Express, log: Logger): express.Express {
  const outer = express();
  outer.disable('x-powered-by');
  outer.get('/', (_req, res) => res.redirect(302, `${prefix}/`));
  outer.use(prefix, app);
  outer.use((_req, res) => void res.status(404).json({ error: 'not found' }));
  outer.use(errorAnswer(log));
  return outer;
}

export { DRAIN_MS, listen, type RunningHttp } from './server/http-server.js';
export { parseListenAddress } from './config-fields/listen-address.js';
