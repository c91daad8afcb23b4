import { parseArgs } from 'node:util';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './support/logger.js';
import { listenAddress } from './config/schema.js';
import { parseDuration } from './config-fields/units.js';
import { DEFAULT_LIMITS, type ServerLimits } from './server/http-server.js';
import { COLLECT_MIN_INTERVAL_MS } from './server/lifecycle.js';

export interface Flags {
  configFile: string;
  listenAddress?: string;
  /** `--web.config.file`: TLS, basic auth and response headers (exporter-toolkit format). */
  webConfigFile?: string;
  enableLifecycle: boolean;
  /** `--web.collect-min-interval` (ms): a /-/collect this soon after the last run's end gets that run's answer. */
  collectMinInterval: number;
  /** `--web.telemetry-path`: where the metrics are served. */
  telemetryPath: string;
  /** `--web.external-url`: the URL users reach vigil at (behind a proxy); links are made under its path. */
  externalUrl?: string;
  /** `--web.route-prefix`: the path every endpoint is served under ("/" or e.g. "/vigil"); default: the external URL's path. */
  routePrefix: string;
  limits: ServerLimits;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** `--total-shards`: replicas splitting the targets (overrides sharding.total_shards). */
  totalShards?: number;
  /** `--shard`: the one this replica polls, from 0. */
  shard?: number;
  /** `--pod`: a StatefulSet pod's name; its ordinal is the shard. */
  pod?: string;
  /** `--config.check`: check the config, the web config and the files they name, then exit. */
  configCheck: boolean;
  /** `--config.check.probe`: the check also polls every endpoint of every target once. */
  configCheckProbe: boolean;
  version: boolean;
  help: boolean;
}

export class FlagError extends Error {}

export const HELP = `usage: vigil [flags]

Monitoring exporter and health daemon: polls a secrets service, cluster agents and a
team-management service on schedules and serves Prometheus metrics.

flags:
  --config.file=PATH            configuration file (YAML) [default: vigil.yml]
  --config.check                check the configuration, the web config and every file they name
                                (tokens, certificates, the alert store's directory), print one line
                                per target and exit: 0 when all is fine, 1 otherwise
  --config.check.probe          with --config.check: also poll every endpoint of every target once
                                and say per endpoint ok, not applicable, refused (with the permission
                                it needs), unreachable, TLS failure or unreadable answer; it starts
                                no merkle check (nothing that acts on an upstream is called)
  --web.listen-address=ADDR     HOST:PORT to serve /metrics, /healthz, /readyz and the API on;
                                overrides web.listen_address of the config [default: 0.0.0.0:9810]
  --web.config.file=PATH        TLS, basic auth and response headers, in the Prometheus
                                exporter-toolkit format (see docs/security.md) [default: none]
  --web.enable-lifecycle        let POST /-/reload and POST /-/collect work (else they answer 403)
  --web.collect-min-interval=DURATION
                                a POST /-/collect this soon after the last run ended gets that
                                run's answer instead of a new run; 0s runs every call [default: 5s]
  --web.telemetry-path=PATH     where to serve the metrics [default: /metrics]
  --web.external-url=URL        the URL users reach vigil at, e.g. behind a reverse proxy under a
                                path (https://proxy.example/vigil/): the pages' links live under it
  --web.route-prefix=PATH       the path every endpoint is served under [default: the path of
                                --web.external-url, else /]
  --web.max-connections=N       open connections at most; past it the oldest idle one is closed,
                                else the one whose answer has been stuck longest [default: 1000]
  --web.header-timeout=DURATION a client must send its request headers within this [default: 10s]
  --web.request-timeout=DURATION
                                ... and its whole request, body included [default: 30s]
  --web.write-timeout=DURATION  an answer its client takes no byte of for this long is cut, and
                                its connection freed (a slow reader that keeps reading is not)
                                [default: 30s]
  --total-shards=N              replicas splitting the targets by consistent hashing of their
                                names; overrides sharding.total_shards of the config [default: 1]
  --shard=K                     the shard this replica polls, 0 to N-1
  --pod=NAME                    take the shard from a StatefulSet pod's name (vigil-2 polls shard 2);
                                give it $(POD_NAME) from the downward API
  --log.level=LEVEL             debug, info, warn or error [default: info]
  --log.format=FORMAT           logfmt or json [default: logfmt]
  --version                     print the version and exit
  --help                        print this help and exit

signals: SIGHUP reloads the configuration (as does POST /-/reload); SIGTERM and SIGINT stop.
`;

const OPTIONS = {
  'config.file': { type: 'string', default: 'vigil.yml' },
  'config.check': { type: 'boolean', default: false },
  'config.check.probe': { type: 'boolean', default: false },
  'web.listen-address': { type: 'string' },
  'web.config.file': { type: 'string' },
  'web.enable-lifecycle': { type: 'boolean', default: false },
  'web.collect-min-interval': { type: 'string' },
  'web.telemetry-path': { type: 'string', default: '/metrics' },
  'web.external-url': { type: 'string' },
  'web.route-prefix': { type: 'string' },
  'web.max-connections': { type: 'string' },
  'web.header-timeout': { type: 'string' },
  'web.request-timeout': { type: 'string' },
  'web.write-timeout': { type: 'string' },
  'total-shards': { type: 'string' },
  shard: { type: 'string' },
  pod: { type: 'string' },
  'log.level': { type: 'string', default: 'info' },
  'log.format': { type: 'string', default: 'logfmt' },
  version: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type FlagValues = Record<string, string | boolean | undefined>;

/** Prometheus-style flags (`--config.file=PATH`); a bad flag names itself and the problem. */
export function parseFlags(argv: string[]): Flags {
  let values: FlagValues;
  try {
    ({ values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: OPTIONS }));
  } catch (e) {
    throw new FlagError((e as Error).message.replace(/\. To specify.*$/s, ''));
  }
  const { level, format } = logFlags(values);
  const listen = values['web.listen-address'] as string | undefined;
  if (listen !== undefined && !listenAddress.safeParse(listen).success) {
    throw new FlagError(`--web.listen-address: "${listen}" must be HOST:PORT (e.g. 0.0.0.0:9810 or :9810)`);
  }
  const webConfigFile = values['web.config.file'] as string | undefined;
  if (webConfigFile === '') throw new FlagError('--web.config.file: must not be empty');
  const telemetryPath = telemetryPathFlag(values);
  const { externalUrl, routePrefix } = prefixFlags(values['web.external-url'] as string | undefined, values['web.route-prefix'] as string | undefined);
  const configFile = String(values['config.file']);
  if (!configFile) throw new FlagError('--config.file: must not be empty');
  if (values['config.check.probe'] === true && values['config.check'] !== true) throw new FlagError('--config.check.probe: only with --config.check');
  return {
    configFile,
    ...(listen !== undefined ? { listenAddress: listen } : {}),
    ...(webConfigFile !== undefined ? { webConfigFile } : {}),
    enableLifecycle: values['web.enable-lifecycle'] === true,
    collectMinInterval: collectIntervalFlag(values['web.collect-min-interval'] as string | undefined),
    telemetryPath,
    ...(externalUrl !== undefined ? { externalUrl } : {}),
    routePrefix,
    limits: limitFlags(values),
    logLevel: level,
    logFormat: format,
    ...shardFlags(values),
    configCheck: values['config.check'] === true,
    configCheckProbe: values['config.check.probe'] === true,
    version: values.version === true,
    help: values.help === true,
  };
}

function shardFlags(values: FlagValues): Pick<Flags, 'totalShards' | 'shard' | 'pod'> {
  const count = (flag: string, min: number): number | undefined => {
    const v = values[flag] as string | undefined;
    if (v === undefined) return undefined;
    if (!/^\d{1,4}$/.test(v) || Number(v) < min) throw new FlagError(`--${flag}: "${v}" is not a whole number of at least ${min}`);
    return Number(v);
  };
  const totalShards = count('total-shards', 1);
  const shard = count('shard', 0);
  const pod = values.pod as string | undefined;
  if (pod === '') throw new FlagError('--pod: must not be empty (give it the pod name, e.g. $(POD_NAME))');
  return { ...(totalShards !== undefined ? { totalShards } : {}), ...(shard !== undefined ? { shard } : {}), ...(pod !== undefined ? { pod } : {}) };
}

function collectIntervalFlag(v: string | undefined): number {
  if (v === undefined) return COLLECT_MIN_INTERVAL_MS;
  const ms = v === '0' ? 0 : parseDuration(v);
  if (ms === undefined) throw new FlagError(`--web.collect-min-interval: "${v}" is not a duration (e.g. 5s, or 0s for none)`);
  return ms;
}

function logFlags(values: FlagValues): { level: LogLevel; format: LogFormat } {
  const level = String(values['log.level']);
  const format = String(values['log.format']);
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new FlagError(`--log.level: "${level}" is not one of ${LOG_LEVELS.join(', ')}`);
  }
  if (!(LOG_FORMATS as readonly string[]).includes(format)) {
    throw new FlagError(`--log.format: "${format}" is not one of ${LOG_FORMATS.join(', ')}`);
  }
  return { level: level as LogLevel, format: format as LogFormat };
}

function telemetryPathFlag(values: FlagValues): string {
  const telemetryPath = String(values['web.telemetry-path']);
  if (!/^\/[A-Za-z0-9._~/-]*$/.test(telemetryPath) || telemetryPath === '/' || /^\/(-|api|ui|alerts|webhook|healthz|readyz)(\/|$)/.test(telemetryPath)) {
    throw new FlagError(
      `--web.telemetry-path: "${telemetryPath}" must be a path of its own such as /metrics (not /, /healthz or /readyz, nor under /-/, /api, /ui, /alerts or /webhook)`,
    );
  }
  return telemetryPath;
}

function limitFlags(values: FlagValues): ServerLimits {
  const duration = (flag: string, def: number) => {
    const v = values[flag] as string | undefined;
    if (v === undefined) return def;
    const ms = parseDuration(v);
    if (!ms) throw new FlagError(`--${flag}: "${v}" is not a duration (e.g. 10s, 1m)`);
    return ms;
  };
  const max = values['web.max-connections'] as string | undefined;
  if (max !== undefined && !/^[1-9]\d{0,6}$/.test(max)) throw new FlagError(`--web.max-connections: "${max}" is not a positive number`);
  const headerTimeoutMs = duration('web.header-timeout', DEFAULT_LIMITS.headerTimeoutMs);
  const requestTimeoutMs = duration('web.request-timeout', DEFAULT_LIMITS.requestTimeoutMs);
  if (headerTimeoutMs > requestTimeoutMs)
    throw new FlagError('--web.header-timeout: must not be longer than --web.request-timeout (the request includes its headers)');
  const writeTimeoutMs = duration('web.write-timeout', DEFAULT_LIMITS.writeTimeoutMs);
  return {
    ...DEFAULT_LIMITS,
    maxConnections: max === undefined ? DEFAULT_LIMITS.maxConnections : Number(max),
    headerTimeoutMs,
    requestTimeoutMs,
    writeTimeoutMs,
  };
}

/** A path as Prometheus takes it for a prefix: leading "/", no trailing one ("/" stays "/"). */
const prefixPath = (p: string) => `/${p.split('/').filter(Boolean).join('/')}`;

function prefixFlags(external: string | undefined, prefix: string | undefined): { externalUrl?: string; routePrefix: string } {
  let url: URL | undefined;
  if (external !== undefined) {
    try {
      url = new URL(external);
    } catch {
      throw new FlagError(`--web.external-url: "${external}" is not an absolute URL (e.g. https://proxy.example/vigil/)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FlagError(`--web.external-url: "${external}" must be http or https`);
    if (url.search || url.hash) throw new FlagError(`--web.external-url: "${external}" must not carry a query or a fragment`);
  }
  if (prefix !== undefined && !/^\/[A-Za-z0-9._~/-]*$/.test(prefix)) throw new FlagError(`--web.route-prefix: "${prefix}" must be a path such as /vigil`);
  const routePrefix = prefixPath(prefix ?? url?.pathname ?? '/');
  return { ...(url ? { externalUrl: url.href } : {}), routePrefix };
}
