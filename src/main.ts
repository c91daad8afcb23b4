#!/usr/bin/env node
// First, so that a stop during start-up is obeyed (ESM evaluates imports in order).
import { stopSignals } from './support/early-stop.js';
import type { Logger } from 'pino';
import { FlagError, HELP, parseFlags, type Flags } from './cli.js';
import { ConfigError } from './config-fields/errors.js';
import { loadConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { resolveShard } from './config/sharding.js';
import { runCheck } from './check/report.js';
import { Daemon } from './daemon.js';
import { setHeapGrowth } from './support/heap-growth.js';
import { createLogger } from './support/logger.js';
import { createProcessMetrics } from './metrics/process-metrics.js';
import { createApp, linkBase, listen, type RunningHttp } from './server.js';
import { HttpGuard } from './server/guard.js';
import { HttpTelemetry } from './server/telemetry.js';
import { loadWebConfig, NO_WEB_CONFIG, type TlsSettings, type WebConfig } from './server/web-config.js';
import { alertPages } from './server/ui-routes.js';
import { AlertSinkService } from './sink/service.js';
import { BRANCH, REVISION, VERSION } from './version.js';

function fail(message: string, code: number): never {
  process.stderr.write(`vigil: ${message}\n`);
  process.exit(code);
}

/** Exits with the problems of an invalid (web) configuration; anything else is thrown on. */
function failInvalid(what: string, file: string | undefined) {
  return (e: unknown): never => {
    if (e instanceof ConfigError) fail(`invalid ${what} ${file}:\n  ${e.problems.join('\n  ')}`, 1);
    throw e;
  };
}

/** The flags, or undefined once `--help` or `--version` is answered. */
function readFlags(argv: string[]): Flags | undefined {
  let flags: Flags;
  try {
    flags = parseFlags(argv);
  } catch (e) {
    if (e instanceof FlagError) fail(`${e.message}\nsee vigil --help`, 2);
    throw e;
  }
  if (flags.help) return void process.stdout.write(HELP);
  if (flags.version) return void process.stdout.write(`vigil ${VERSION} (revision ${REVISION}, branch ${BRANCH}, node ${process.version})\n`);
  return flags;
}

async function readConfigs(flags: Flags): Promise<{ config: Config; web: WebConfig }> {
  const config = await loadConfig(flags.configFile).catch(failInvalid('configuration', flags.configFile));
  try {
    resolveShard(flags, config.sharding);
  } catch (e) {
    fail(`cannot start with ${flags.configFile}: ${(e as Error).message}`, 1);
  }
  const web = flags.webConfigFile ? await loadWebConfig(flags.webConfigFile).catch(failInvalid('web configuration', flags.webConfigFile)) : NO_WEB_CONFIG;
  return { config, web };
}

/**
 * Re-reads the config and the web config together: a bad one fails the reload and changes nothing.
 * The server's TLS is reloaded too once it listens (the server serves this reload's endpoint).
 */
class ConfigReload {
  private prepareTls: (tls: TlsSettings | undefined) => Promise<() => void> = () => Promise.reject(new Error('not listening yet'));

  constructor(
    private readonly daemon: Daemon,
    private readonly guard: HttpGuard,
    private readonly flags: Flags,
  ) {}

  listening(server: RunningHttp): void {
    this.prepareTls = (tls) => server.prepareTls(tls);
  }

  readonly run = async (): Promise<void> => {
    let commit = () => undefined as void;
    await this.daemon.reload(async () => {
      const next = await loadConfig(this.flags.configFile);
      if (this.flags.webConfigFile) {
        const nextWeb = await loadWebConfig(this.flags.webConfigFile);
        const useTls = await this.prepareTls(nextWeb.tls);
        commit = () => {
          useTls();
          this.guard.apply(nextWeb);
        };
      }
      return next;
    });
    commit();
  };
}

/** Makes the HTTP server, the alert sink among its routes, and listens. */
async function serve(flags: Flags, web: WebConfig, daemon: Daemon, log: Logger, address: string): Promise<{ server: RunningHttp; reload: ConfigReload }> {
  // Where the endpoints are served and where users reach them (behind a proxy, under a path).
  const paths = {
    telemetryPath: flags.telemetryPath,
    routePrefix: flags.routePrefix,
    ...(flags.externalUrl !== undefined ? { linkBase: new URL(flags.externalUrl).pathname } : {}),
  };
  const telemetry = new HttpTelemetry(daemon.store);
  const guard = new HttpGuard(web, { telemetry });
  const pages = alertPages({ daemon, version: VERSION, metricsPath: flags.telemetryPath, base: linkBase(paths) });
  const sink = new AlertSinkService({ metrics: daemon.store, log, listenAddress: address, authenticated: guard.authenticated, pages });
  guard.exempt((req) => sink.authenticatesItself(req, flags.routePrefix));
  daemon.use(sink);
  const reload = new ConfigReload(daemon, guard, flags);
  const app = createApp({
    daemon,
    reload: reload.run,
    processMetrics: createProcessMetrics(),
    log,
    routes: sink.routes,
    enableLifecycle: flags.enableLifecycle,
    collectMinInterval: flags.collectMinInterval,
    ...paths,
  });
  const server = await listen(app, address, { ...(web.tls ? { tls: web.tls } : {}), limits: flags.limits, guard, log, telemetry }).catch((e: Error) =>
    e instanceof ConfigError ? failInvalid('web configuration', flags.webConfigFile)(e) : fail(`cannot listen on ${address}: ${e.message}`, 1),
  );
  reload.listening(server);
  return { server, reload };
}

async function main(argv: string[]): Promise<void> {
  const flags = readFlags(argv);
  if (!flags) return;
  const { config, web } = await readConfigs(flags);
  if (flags.configCheck) {
    const { text, ok } = await runCheck(config, flags.webConfigFile ? web : undefined, flags.configCheckProbe);
    process.stdout.write(text);
    process.exit(ok ? 0 : 1);
  }
  const log = createLogger(flags.logLevel, flags.logFormat);
  setHeapGrowth();
  const daemon = new Daemon(log, { collectionThread: { level: flags.logLevel, format: flags.logFormat }, shard: flags });
  const address = flags.listenAddress ?? config.web.listen_address;
  const { server, reload } = await serve(flags, web, daemon, log, address);
  log.info(
    {
      address,
      url: server.url,
      version: VERSION,
      config: flags.configFile,
      tls: web.tls !== undefined,
      basic_auth: web.users.size > 0,
      lifecycle: flags.enableLifecycle,
    },
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
  await daemon.apply(config).catch((e: Error) => fail(`cannot start with ${flags.configFile}: ${e.message}`, 1));

  stopSignals.onReload(() => {
    log.info('SIGHUP: reloading configuration');
    reload.run().catch(() => undefined);
  });
}

main(process.argv.slice(2)).catch((e: unknown) => fail(`fatal: ${(e as Error).stack ?? String(e)}`, 1));
