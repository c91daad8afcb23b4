import { describe, expect, it } from 'vitest';
import { FlagError, parseFlags } from '../../src/cli.js';
import { parseListenAddress } from '../../src/server.js';

describe('command-line flags', () => {
  it('has Prometheus-style defaults', () => {
    expect(parseFlags([])).toEqual({
      configFile: 'vigil.yml',
      logLevel: 'info',
      logFormat: 'logfmt',
      configCheck: false,
      configCheckProbe: false,
      version: false,
      help: false,
      enableLifecycle: false,
      collectMinInterval: 5000,
      telemetryPath: '/metrics',
      routePrefix: '/',
      limits: {
        maxConnections: 1000,
        headerTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        keepAliveTimeoutMs: 65_000,
        maxHeaderBytes: 16384,
        writeTimeoutMs: 30_000,
      },
    });
  });

  it('reads the web flags', () => {
    expect(
      parseFlags([
        '--web.config.file=/etc/vigil/web.yml',
        '--web.enable-lifecycle',
        '--web.max-connections=50',
        '--web.header-timeout=2s',
        '--web.request-timeout=1m',
        '--web.write-timeout=2m',
        '--web.collect-min-interval=0s',
      ]),
    ).toMatchObject({
      webConfigFile: '/etc/vigil/web.yml',
      enableLifecycle: true,
      collectMinInterval: 0,
      limits: { maxConnections: 50, headerTimeoutMs: 2000, requestTimeoutMs: 60_000, writeTimeoutMs: 120_000 },
    });
  });

  it('takes the route prefix from the external URL unless given, without a trailing slash', () => {
    expect(parseFlags(['--web.external-url=https://proxy.example/vigil/'])).toMatchObject({
      externalUrl: 'https://proxy.example/vigil/',
      routePrefix: '/vigil',
    });
    expect(parseFlags(['--web.external-url=https://proxy.example/vigil/', '--web.route-prefix=/']).routePrefix).toBe('/');
    expect(parseFlags(['--web.route-prefix=/a/b/']).routePrefix).toBe('/a/b');
  });

  it('reads the telemetry path', () => {
    expect(parseFlags(['--web.telemetry-path=/probe/metrics']).telemetryPath).toBe('/probe/metrics');
  });

  it('reads every flag', () => {
    expect(parseFlags(['--config.file=/etc/vigil/vigil.yml', '--web.listen-address=127.0.0.1:9999', '--log.level=debug', '--log.format=json'])).toMatchObject({
      configFile: '/etc/vigil/vigil.yml',
      listenAddress: '127.0.0.1:9999',
      logLevel: 'debug',
      logFormat: 'json',
    });
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--web.collect-min-interval=soon'], /--web\.collect-min-interval: "soon" is not a duration/],
    [['--web.external-url=proxy/vigil'], /--web\.external-url: "proxy\/vigil" is not an absolute URL/],
    [['--web.external-url=ftp://proxy/vigil/'], /--web\.external-url: "ftp:\/\/proxy\/vigil\/" must be http or https/],
    [['--web.external-url=https://proxy/vigil/?x=1'], /must not carry a query or a fragment/],
    [['--web.route-prefix=vigil'], /--web\.route-prefix: "vigil" must be a path such as \/vigil/],
    [['--web.telemetry-path=metrics'], /--web\.telemetry-path: "metrics" must be a path of its own/],
    [['--web.telemetry-path=/'], /--web\.telemetry-path: "\/"/],
    [['--web.telemetry-path=/-/metrics'], /--web\.telemetry-path: "\/-\/metrics"/],
    [['--web.telemetry-path=/healthz'], /--web\.telemetry-path: "\/healthz"/],
    [['--web.telemetry-path=/a b'], /--web\.telemetry-path: "\/a b"/],
    [['--log.level=verbose'], /--log\.level: "verbose" is not one of debug, info, warn, error/],
    [['--log.format=xml'], /--log\.format: "xml"/],
    [['--web.listen-address=9810'], /--web\.listen-address: "9810" must be HOST:PORT/],
    [['positional'], /positional/i],
    [['--web.max-connections=0'], /--web\.max-connections: "0" is not a positive number/],
    [['--web.header-timeout=soon'], /--web\.header-timeout: "soon" is not a duration/],
    [['--web.write-timeout=0s'], /--web\.write-timeout: "0s" is not a duration/],
    [['--web.config.file='], /--web\.config\.file: must not be empty/],
    [['--web.header-timeout=1m'], /--web\.header-timeout: must not be longer than --web\.request-timeout/],
    [['--total-shards=0'], /--total-shards: "0" is not a whole number of at least 1/],
    [['--shard=-1'], /--shard: "-1" is not a whole number of at least 0/],
    [['--shard=one'], /--shard: "one"/],
    [['--pod='], /--pod: must not be empty/],
  ])('%j is refused with a message naming it', (argv, msg) => {
    expect(() => parseFlags(argv)).toThrow(FlagError);
    expect(() => parseFlags(argv)).toThrow(msg);
  });
});

describe('shard flags', () => {
  it('reads --config.check and --config.check.probe, the probe only with the check', () => {
    expect(parseFlags(['--config.check'])).toMatchObject({ configCheck: true, configCheckProbe: false });
    expect(parseFlags(['--config.check', '--config.check.probe'])).toMatchObject({ configCheck: true, configCheckProbe: true });
    expect(() => parseFlags(['--config.check.probe'])).toThrow('--config.check.probe: only with --config.check');
  });

  it('reads --total-shards, --shard and --pod', () => {
    expect(parseFlags(['--total-shards=3', '--pod=vigil-2'])).toMatchObject({ totalShards: 3, pod: 'vigil-2' });
    expect(parseFlags(['--total-shards=12', '--shard=11'])).toMatchObject({ totalShards: 12, shard: 11 });
    expect(parseFlags([])).not.toHaveProperty('totalShards');
  });
});

describe('listen address', () => {
  it.each([
    ['0.0.0.0:9810', { host: '0.0.0.0', port: 9810 }],
    [':9810', { host: '0.0.0.0', port: 9810 }],
    ['[::1]:9810', { host: '::1', port: 9810 }],
    ['localhost:0', { host: 'localhost', port: 0 }],
  ])('%s', (addr, expected) => {
    expect(parseListenAddress(addr)).toEqual(expected);
  });
});
