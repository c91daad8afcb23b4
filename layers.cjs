// The layers of vigil's code, lowest first, and what each may import: a file imports from its own
// layer and from the layers its entry names, nothing else (so no layer reaches one above it, and
// none reaches sideways into a layer it has no business with). This list is the one place the graph
// is written: .dependency-cruiser.cjs turns it into rules that `npm test` checks
// (test/unit/shipped/layers.test.ts, which also holds every file of src/ to exactly one layer), and
// docs/architecture.md shows it (`npm run docs`).

/** [layer, the paths it holds (regular expressions from the repository root), what it holds, the layers it may import]. */
const LAYERS = [
  [
    'support',
    ['^src/support/', '^src/version\\.ts$'],
    'generic helpers: the logger, bounded request bodies, turns of the event loop, threads, buffer moves, signals, the version',
    [],
  ],
  [
    'config-fields',
    ['^src/config-fields/'],
    "the config's building blocks: field types whose errors name the key, units, schedules, bounded file reads, the alert sink's section",
    ['support'],
  ],
  [
    'upstream',
    ['^src/upstream/'],
    'the generic HTTP client: retries, bounds, redaction, TLS, proxies, the answer memo, decoding, schema helpers, failure reasons; it names no upstream',
    ['support', 'config-fields'],
  ],
  ['metrics', ['^src/metrics/'], 'a library: metric families as data, the snapshot store, rendering (text and OpenMetrics)', ['support']],
  [
    'offload',
    ['^src/offload/'],
    'a pool of worker threads that runs the tasks it is given, and an answer decoded there or here by its size',
    ['support', 'upstream'],
  ],
  [
    'telemetry',
    ['^src/telemetry/'],
    "vigil's own view of its jobs and upstream requests: their stats and the vigil_collector_* and vigil_upstream_* families",
    ['support', 'upstream', 'metrics'],
  ],
  [
    'jobs',
    ['^src/jobs/'],
    'what a job is made of: parts, the build context (pooled clients, turns), secret files',
    ['support', 'config-fields', 'upstream', 'metrics', 'offload', 'telemetry'],
  ],
  [
    'collectors',
    ['^src/collectors/'],
    'the collector, endpoint and plan definitions, the one runner of plans, the decoding tasks, and one folder per upstream: its target, its endpoints (one file each: schema, declaration, families), its plans and the state it derives across targets',
    ['support', 'config-fields', 'upstream', 'metrics', 'offload', 'telemetry', 'jobs'],
  ],
  ['config', ['^src/config/'], "the config file: its schema (the collectors' targets), loading, sharding", ['support', 'config-fields', 'collectors']],
  [
    'engine',
    ['^src/engine/'],
    'what runs the jobs: the cron runner, run commits, the collection engine and its thread, the body it sends',
    ['support', 'config-fields', 'upstream', 'metrics', 'telemetry', 'jobs', 'collectors', 'config'],
  ],
  ['sink', ['^src/sink/'], 'the alert sink: webhook, stores (SQLite, PostgreSQL), history API, its families', ['support', 'config-fields', 'metrics']],
  ['catalog', ['^src/catalog\\.ts$'], 'every metric family vigil exports, in exposition order', ['metrics', 'jobs', 'collectors', 'sink']],
  [
    'daemon',
    ['^src/daemon\\.ts$'],
    "the daemon: the collection engine (in its thread), the main thread's own series, the body served",
    ['support', 'config-fields', 'metrics', 'config', 'engine', 'catalog'],
  ],
  [
    'server',
    ['^src/server/', '^src/server\\.ts$'],
    'the HTTP surface: TLS, auth, limits, /metrics, lifecycle, the status pages',
    ['support', 'config-fields', 'metrics', 'config', 'engine', 'sink', 'catalog', 'daemon'],
  ],
  [
    'check',
    ['^src/check/'],
    '`--config.check`: the files a config names, and each endpoint polled once',
    ['support', 'config-fields', 'upstream', 'jobs', 'collectors', 'config', 'server'],
  ],
  [
    'entry',
    ['^src/(cli|healthcheck|main)\\.ts$'],
    'the command line and the programs: vigil and its health check',
    ['support', 'config-fields', 'metrics', 'config', 'sink', 'daemon', 'server', 'check'],
  ],
];

/** The bundled simulators: shared pieces, then one folder per service, then the demo over them all. */
const SIMULATOR_LAYERS = [
  ['simulators/common', ['^simulators/common/'], 'what every simulator shares: HTTP, faults, profiles, arguments', []],
  ['simulators/services', ['^simulators/(secrets|agent|teams|alerting)/'], 'one simulator per upstream, and the alerting stack', ['simulators/common']],
  ['simulators/demo', ['^simulators/[^/]+\\.ts$'], 'the demo: every simulator and vigil together', ['simulators/common', 'simulators/services']],
];

module.exports = { LAYERS, SIMULATOR_LAYERS };
