// The layers of vigil's code, lowest first: a file may import from its own layer and the ones
// below it, never from one above. This list is the one place the order is written:
// .dependency-cruiser.cjs turns it into rules that `npm test` checks (test/unit/shipped/layers.test.ts),
// and docs/architecture.md shows it (`npm run docs`).

/** [layer, the paths it holds (regular expressions from the repository root), what it holds]. */
const LAYERS = [
  [
    'support',
    ['^src/support/', '^src/version\\.ts$'],
    'generic helpers: the logger, bounded request bodies, turns of the event loop, buffer moves, signals, the version',
  ],
  ['config', ['^src/config/'], 'the config file: zod schemas whose errors name the key, loading, units, schedules'],
  ['upstream', ['^src/upstream/'], 'the HTTP client and its failure reasons, and each upstream API: its endpoints and their schemas'],
  ['metrics', ['^src/metrics/'], "metric families as data, the snapshot store, rendering (text and OpenMetrics), vigil's own telemetry families"],
  ['offload', ['^src/offload/'], 'the worker pool that decodes and renders large answers off the collection thread'],
  ['jobs', ['^src/jobs/'], 'what a job is made of: parts, the build context (pooled clients, turns), secret files'],
  ['collectors', ['^src/collectors/'], 'one collector per upstream: the endpoints it polls, the families they feed, the jobs its targets become'],
  ['engine', ['^src/engine/'], 'what runs the jobs: the cron runner, run commits, the collection engine and its thread, the body it sends'],
  ['sink', ['^src/sink/'], 'the alert sink: webhook, stores (SQLite, PostgreSQL), history API, its families'],
  ['catalog', ['^src/catalog\\.ts$'], 'every metric family vigil exports, in exposition order'],
  ['daemon', ['^src/daemon\\.ts$'], "the daemon: the collection engine (in its thread), the main thread's own series, the body served"],
  ['server', ['^src/server/', '^src/server\\.ts$'], 'the HTTP surface: TLS, auth, limits, /metrics, lifecycle, the status pages'],
  ['entry', ['^src/(cli|healthcheck|main)\\.ts$'], 'the command line and the programs: vigil and its health check'],
];

/** The bundled simulators: shared pieces, then one folder per service, then the demo over them all. */
const SIMULATOR_LAYERS = [
  ['simulators/common', ['^simulators/common/'], 'what every simulator shares: HTTP, faults, profiles, arguments'],
  ['simulators/services', ['^simulators/(secrets|agent|teams|alerting)/'], 'one simulator per upstream, and the alerting stack'],
  ['simulators/demo', ['^simulators/[^/]+\\.ts$'], 'the demo: every simulator and vigil together'],
];

module.exports = { LAYERS, SIMULATOR_LAYERS };
