#!/usr/bin/env node
// First, so that a stop during start-up is obeyed (ESM evaluates imports in order).
import { stopSignals } from './support/early-stop.js';
import { FlagError, HELP, parseFlags, type Flags } from './cli.js';
import { ConfigError, loadConfig } from './config/load.js';
import { Daemon } from './daemon.js';
import { createLogger } from './support/logger.js';
import { createProcessMetrics } from './metrics/process-metrics.js';
import { createApp, linkBase, listen } from './server/app.js';
import { HttpGuard } from './server/guard.js';
import { HttpTelemetry } from './server/telemetry.js';
import { loadWebConfig, NO_WEB_CONFIG, type WebConfig } from './server/web-config.js';
import { alertPages } from './server/ui-routes.js';
import { AlertSinkService } from './sink/service.js';
import { BRANCH, REVISION, VERSION } from './version.js';

function fail(message: string, code: number): never {
  process.stderr.write(`vigil: ${message}\n`);
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  let flags: Flags;
  try {
    flags = parseFlags(argv);
  } catch (e) {
    if (e instanceof FlagError) fail(`${e.message}\nsee vigil --help`, 2);
    throw e;
  }
  if (flags.help) return void process.stdout.write(HELP);
  if (flags.version) return void process.stdout.write(`vigil ${VERSION} (revision ${REVISION}, branch ${BRANCH}, node ${process.version})\n`);

  const configFile = flags.configFile;
  const config = await loadConfig(configFile).catch((e: unknown) => {
    if (e instanceof ConfigError) fail(`invalid configuration ${configFile}:\n  ${e.problems.join('\n  ')}`, 1);
    throw e;
  });

  const webFile = flags.webConfigFile;
  const web: WebConfig = webFile
    ? await loadWebConfig(webFile).catch((e: unknown) => {
        if (e instanceof ConfigError) fail(`invalid web configuration ${webFile}:\n  ${e.problems.join('\n  ')}`, 1);
        throw e;
      })
    : NO_WEB_CONFIG;

  // Where the endpoints are served and where users reach them (behind a proxy, under a path).
  const paths = {
    telemetryPath: flags.telemetryPath,
    routePrefix: flags.routePrefix,
    ...(flags.externalUrl !== undefined ? { linkBase: new URL(flags.externalUrl).pathname } : {}),
  };
  const log = createLogger(flags.logLevel, flags.logFormat);
  const daemon = new Daemon(log, { collectionThread: { level: flags.logLevel, format: flags.logFormat } });
  const address = flags.listenAddress ?? config.web.listen_address;
  const sink: AlertSinkService = new AlertSinkService({ metrics: daemon.store, log, listenAddress: address, authenticated: (req): boolean => guard.authenticated(req), pages: alertPages({ daemon, version: VERSION, metricsPath: flags.telemetryPath, base: linkBase(paths) }) });
  const telemetry = new HttpTelemetry(daemon.store);
  const guard: HttpGuard = new HttpGuard(web, { selfAuthenticated: (req): boolean => sink.authenticatesItself(req), telemetry });
  daemon.use(sink);
  // The web config is re-read with the config: a bad one fails the reload and changes nothing.
  const reload = async () => {
    let commit = () => undefined as void;
    await daemon.reload(async () => {
      const next = await loadConfig(configFile);
      if (webFile) {
        const nextWeb = await loadWebConfig(webFile);
        const useTls = await server.prepareTls(nextWeb.tls);
        commit = () => {
          useTls();
          guard.apply(nextWeb);
        };
      }
      return next;
    });
    commit();
  };
  const app = createApp({ daemon, reload, processMetrics: createProcessMetrics(), log, routes: sink.routes, enableLifecycle: flags.enableLifecycle, ...paths });
  const server = await listen(app, address, { ...(web.tls ? { tls: web.tls } : {}), limits: flags.limits, guard, log, telemetry }).catch((e: Error) =>
    e instanceof ConfigError ? fail(`invalid web configuration ${webFile}:\n  ${e.problems.join('\n  ')}`, 1) : fail(`cannot listen on ${address}: ${e.message}`, 1),
  );
  log.info(
    { address, url: server.url, version: VERSION, config: configFile, tls: web.tls !== undefined, basic_auth: web.users.size > 0, lifecycle: flags.enableLifecycle },
    'vigil listening',
  );
  // Requests in flight are answered first (a webhook is stored or refused), then the store closes.
  stopSignals.onStop((signal) => {
    log.info({ signal }, 'stopping');
    void server
      .close()
      .then(() => daemon.stop())
      .then(() => process.exit(0));
    setTimeout(() => process.exit(1), 10_000).unref();
  });
  await daemon.apply(config).catch((e: Error) => fail(`cannot start with ${configFile}: ${e.message}`, 1));

  stopSignals.onReload(() => {
    log.info('SIGHUP: reloading configuration');
    reload().catch(() => undefined);
  });
}

main(process.argv.slice(2)).catch((e: unknown) => fail(`fatal: ${(e as Error).stack ?? String(e)}`, 1));
