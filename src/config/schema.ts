import { z } from 'zod';
import { duration, optionalSize, readableFile, schedule, size, targetFields, uniqueNames } from './fields.js';
import { postgresStore } from './postgres-store.js';

export const REPLICATION_KINDS = ['performance', 'dr'] as const;
export type ReplicationKind = (typeof REPLICATION_KINDS)[number];

/** What a status endpoint is polled at unless the target says otherwise. */
const EVERY_15_SECONDS = '*/15 * * * * *';

const secretsTarget = z.strictObject({
  ...targetFields(EVERY_15_SECONDS),
  /** Sent as X-Secrets-Namespace. The status endpoints answer in any namespace. */
  namespace: z.string().min(1).optional(),
  replication_kinds: z
    .array(z.enum(REPLICATION_KINDS))
    .min(1)
    .default([...REPLICATION_KINDS])
    .refine((k) => new Set(k).size === k.length, 'each kind at most once'),
  merkle_check: z
    .strictObject({
      dr_operation_token_file: readableFile,
      schedule: schedule('0 0 * * * *'),
      timeout: duration('60s'),
    })
    .optional(),
});
export type SecretsTarget = z.output<typeof secretsTarget>;

/**
 * A cluster agent (server, client or both). `/agent/health` is always polled; each optional endpoint
 * has its own switch. `host` is off by default: it needs agent:read and returns host details
 * (environment, network) that not every operator wants an exporter to fetch.
 */
const agentTarget = z.strictObject({
  ...targetFields(EVERY_15_SECONDS),
  members: z.boolean().default(true),
  servers: z.boolean().default(true),
  self: z.boolean().default(true),
  host: z.boolean().default(false),
  /** Per-member series (member_status, member_info) beyond this many are dropped and counted. */
  max_members: z.number().int().min(0).default(10_000),
});
export type AgentTarget = z.output<typeof agentTarget>;

/** The team-management service's largest page (it clamps larger ones), and its rate limit per token. */
export const TEAMS_MAX_PAGE_SIZE = 100;
export const TEAMS_SERVICE_RATE_PER_SECOND = 30;

const teamsTarget = z.strictObject({
  ...targetFields('0 */5 * * * *'),
  /** Every request needs a token; an organization token sees every team, a member token only some. */
  token_file: readableFile,
  organization: z.string().min(1),
  page_size: z.number().int().min(1).max(TEAMS_MAX_PAGE_SIZE).default(TEAMS_MAX_PAGE_SIZE),
  /** Below the service's 30 per token, so vigil leaves room for other clients of the same token. */
  requests_per_second: z.number().positive().max(1000).default(25),
  /** Teams with their own series (users, info); further teams are only counted. */
  max_teams: z.number().int().min(0).default(10_000),
  /** Bound on one listing, against a server whose pagination never ends. */
  max_pages: z.number().int().min(1).default(1000),
  /** Show each team whose list entry lacks organization-access flags (one request per such team). */
  complete_access: z.boolean().default(false),
});
export type TeamsTarget = z.output<typeof teamsTarget>;

/** Where the Docker image mounts its volume; relative paths are taken from the working directory. */
export const DEFAULT_ALERT_STORE_PATH = '/var/lib/vigil/alerts.db';

/** The alert store used when `alert_sink.store` is absent: an SQLite file at the default path. */
const defaultStore = { path: DEFAULT_ALERT_STORE_PATH, retention: 30 * 86_400_000, prune_interval: 3_600_000 };

/**
 * Where the sink keeps its history: an SQLite file (`path`, one vigil) or a PostgreSQL database
 * shared by several vigil replicas (`postgres`). Exactly one of the two.
 */
const alertStore = z
  .strictObject({
    path: z.string().min(1, 'must not be empty').optional(),
    postgres: postgresStore.optional(),
    retention: duration('30d'),
    prune_interval: duration('1h'),
    /** A cap on the SQLite file; a full store answers 507 and Alertmanager retries. */
    max_size: optionalSize,
  })
  .superRefine((s, ctx) => {
    if (s.path !== undefined && s.postgres) ctx.addIssue({ code: 'custom', path: ['postgres'], message: 'set either path (SQLite) or postgres, not both' });
    if (s.path === undefined && !s.postgres) ctx.addIssue({ code: 'custom', message: 'set path (an SQLite file) or postgres (a database shared by several vigil replicas)' });
    if (s.postgres && s.max_size !== undefined) ctx.addIssue({ code: 'custom', path: ['max_size'], message: 'only for an SQLite store (path); size a PostgreSQL database there' });
  })
  .optional()
  .transform((s) => s ?? { ...defaultStore, postgres: undefined, max_size: undefined });
export type AlertStoreConfig = z.output<typeof alertStore>;

/** The webhook alert sink. Absent means off: no database is created and no Watchdog is expected. */
const alertSink = z.strictObject({
  enabled: z.boolean().default(true),
  bearer_token_file: readableFile.optional(),
  basic_auth: z
    .strictObject({
      // RFC 7617: the user-id ends at the first colon.
      username: z.string().min(1, 'must not be empty').regex(/^[^:]*$/, 'must not contain ":"'),
      password_file: readableFile,
    })
    .optional(),
  store: alertStore,
  body_limit: size('10MiB'),
  watchdog: z
    .strictObject({
      alertname: z.string().min(1, 'must not be empty').default('Watchdog'),
      max_silence: duration('10m'),
    })
    .prefault({}),
});
export type AlertSinkConfig = z.output<typeof alertSink>;

const listenAddress = z.string().regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]*):\d{1,5}$/, 'must be HOST:PORT (e.g. 0.0.0.0:9810 or :9810)');

export const configSchema = z.strictObject({
  web: z
    .strictObject({ listen_address: listenAddress.default('0.0.0.0:9810') })
    .default({ listen_address: '0.0.0.0:9810' }),
  secrets: z.array(secretsTarget).default([]).superRefine(uniqueNames),
  agents: z.array(agentTarget).default([]).superRefine(uniqueNames),
  teams: z.array(teamsTarget).default([]).superRefine(uniqueNames),
  alert_sink: alertSink.optional(),
});

export type Config = z.output<typeof configSchema>;
export { listenAddress };
