#!/usr/bin/env node
// First, so that a stop during start-up is obeyed (ESM evaluates imports in order).
import { stopSignals } from './early-stop.js';
import { FlagError, HELP, parseFlags, type Flags } from './cli.js';
import { ConfigError, loadConfig } from './config/load.js';
import { Daemon } from './daemon.js';
import { createLogger } from './log/logger.js';
import { createProcessMetrics } from './metrics/process-metrics.js';
import { createApp, listen } from './server.js';
import { AlertSinkService } from './sink/service.js';
import { REVISION, VERSION } from './version.js';

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
  if (flags.version) return void process.stdout.write(`vigil ${VERSION} (revision ${REVISION}, node ${process.version})\n`);

  const configFile = flags.configFile;
  const config = await loadConfig(configFile).catch((e: unknown) => {
    if (e instanceof ConfigError) fail(`invalid configuration ${configFile}:\n  ${e.problems.join('\n  ')}`, 1);
    throw e;
  });

  const log = createLogger(flags.logLevel, flags.logFormat);
  const daemon = new Daemon(log);
  const sink = new AlertSinkService({ metrics: daemon.store, log });
  daemon.use(sink);
  const reload = () => daemon.reload(() => loadConfig(configFile));
  const app = createApp({ daemon, reload, processMetrics: createProcessMetrics(), log, routes: sink.routes });
  const address = flags.listenAddress ?? config.web.listen_address;
  const server = await listen(app, address).catch((e: Error) => fail(`cannot listen on ${address}: ${e.message}`, 1));
  log.info({ address, url: server.url, version: VERSION, config: configFile }, 'vigil listening');
  stopSignals.onStop((signal) => {
    log.info({ signal }, 'stopping');
    void Promise.all([server.close(), daemon.stop()]).then(() => process.exit(0));
    setTimeout(() => process.exit(1), 10_000).unref();
  });
  await daemon.apply(config).catch((e: Error) => fail(`cannot start with ${configFile}: ${e.message}`, 1));

  process.on('SIGHUP', () => {
    log.info('SIGHUP: reloading configuration');
    reload().catch(() => undefined);
  });
}

main(process.argv.slice(2)).catch((e: unknown) => fail(`fatal: ${(e as Error).stack ?? String(e)}`, 1));
