import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sectionOf } from '../../../scripts/doc-sections.js';
import type { Daemon } from '../../../src/daemon.js';
import { createLogger } from '../../../src/support/logger.js';
import { HTTP_ROUTES, renderHttpRoutesTable } from '../../../src/server/http-routes.js';
import { alertPages } from '../../../src/server/ui-routes.js';
import { createExpressApp } from '../../../src/server.js';
import { sinkRouter, type SinkRouteDeps } from '../../../src/sink/routes.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The README's endpoint table against the routes the server is made of: vigil's own app (with its
 * lifecycle and page routers) and the alert sink's router with its history pages, walked as
 * express holds them. A route added without a row, or a row without a route, fails here.
 */
interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  name?: string;
}

function routes(stack: Layer[]): string[] {
  return stack.flatMap((l) => {
    if (l.route) {
      const paths = Array.isArray(l.route.path) ? l.route.path : [l.route.path];
      const methods = Object.keys(l.route.methods).filter((m) => m !== '_all');
      // `router.all` answers every method: the endpoint is documented by the one that works (POST).
      const shown = l.route.methods._all ? ['POST'] : methods.map((m) => m.toUpperCase());
      return paths.flatMap((p) => shown.filter((m) => m !== 'HEAD').map((m) => `${m} ${p}`));
    }
    if (l.name === 'serveStatic') return ['GET /ui/*'];
    return l.handle?.stack ? routes(l.handle.stack) : [];
  });
}

const stub = <T>() => ({}) as T;

/** The files /ui/ serves, as a directory of its own: /ui/ is served whether or not `npm run build` has run. */
function uiAssets(): string {
  const dir = tempDir('vigil-ui-');
  for (const file of ['app.js', 'style.css', 'favicon.svg']) writeFileSync(join(dir, file), '');
  return dir;
}

describe('the endpoint table', () => {
  const log = createLogger('error', 'json', new PassThrough());
  const { app } = createExpressApp({
    daemon: stub<Daemon>(),
    reload: async () => undefined,
    processMetrics: async () => '',
    log,
    enableLifecycle: true,
    uiAssets: uiAssets(),
  });
  const sink = sinkRouter({ ...stub<SinkRouteDeps>(), pages: alertPages({ daemon: stub<Daemon>(), version: '0' }) });
  const served = new Set([
    ...routes((app as unknown as { router: { stack: Layer[] } }).router.stack),
    ...routes((sink as unknown as { stack: Layer[] }).stack),
  ]);
  const documented = new Set(HTTP_ROUTES.map((e) => `${e.method} ${e.path}`));

  it('documents every route the server is made of', () => {
    expect(served.size).toBeGreaterThan(10);
    expect([...served].filter((r) => !documented.has(r))).toEqual([]);
  });

  it('documents no route the server does not have', () => {
    expect([...documented].filter((r) => !served.has(r))).toEqual([]);
  });

  it('is what the README shows (run `npm run docs` after changing an endpoint)', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(sectionOf(readme, 'http-routes', 'README.md')).toBe(renderHttpRoutesTable());
  });
});
