import { z } from 'zod';
import { duration, optionalSize, readableFile, schedule, size, targetFields, uniqueNames } from './fields.js';
import { postgresStore } from './alert-store.js';

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
  /**
   * Names the replication set this cluster belongs to, per kind, to join clusters whose answers do
   * not link them (vigil links clusters by cluster_id, known secondaries and primaries' addresses).
   */
  replication_set: z.strictObject({ performance: z.string().min(1).optional(), dr: z.string().min(1).optional() }).optional(),
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
  max_members: z.number().int().min(0).default(20_000),
  /** Servers this agent should know (a client) or its raft cluster should have (a server); exported for SchedulerAgentServersBelowExpected. */
  expected_servers: z.number().int().min(1).optional(),
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
  /** The team whose users own the organization; its users-count is watched for a sudden loss. */
  owners_team: z.string().min(1).default('owners'),
  /** A loss of more than this share of the teams, or of the owners team's users, within an hour alerts. */
  loss_alert_fraction: z.number().gt(0).max(1).default(0.2),
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
    if (s.path === undefined && !s.postgres)
      ctx.addIssue({ code: 'custom', message: 'set path (an SQLite file) or postgres (a database shared by several vigil replicas)' });
    if (s.postgres && s.max_size !== undefined)
      ctx.addIssue({ code: 'custom', path: ['max_size'], message: 'only for an SQLite store (path); size a PostgreSQL database there' });
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
      username: z
        .string()
        .min(1, 'must not be empty')
        .regex(/^[^:]*$/, 'must not contain ":"'),
      password_file: readableFile,
    })
    .optional(),
  /** A bearer token for the read API only (`/api/v1/alerts`, ...): readers need not hold the webhook's credentials. */
  read_token_file: readableFile.optional(),
  /** Webhook bodies read at once at most; one more is answered 503 (Alertmanager retries) before it is read. */
  max_in_flight: z.number().int().min(1).max(10_000).default(32),
  store: alertStore,
  body_limit: size('10MiB'),
  /**
   * Without bearer_token_file or basic_auth anyone who reaches the port can post (a forged Watchdog
   * hides a broken alert path): refused on a non-loopback listen address unless set to true.
   */
  allow_unauthenticated: z.boolean().default(false),
  /** Bounds on what senders and readers can make the sink hold, render or answer (docs/security.md#limits). */
  limits: z
    .strictObject({
      /** Distinct receiver / severity label values on /metrics; the least active fold into "other". */
      max_label_values: z.number().int().min(1).max(10_000).default(100),
      /** Longer receiver / severity values are shown as "other". */
      max_label_length: z.number().int().min(1).max(1024).default(128),
      /** JSON nesting a notification may have; deeper ones are refused with 400. */
      max_depth: z.number().int().min(8).max(1000).default(64),
      /** Bytes of stored text one read API answer holds (a page ends early beyond; never fewer than one item). */
      max_answer_size: size('16MiB'),
    })
    .prefault({}),
  watchdog: z
    .strictObject({
      alertname: z.string().min(1, 'must not be empty').default('Watchdog'),
      max_silence: duration('10m'),
    })
    .prefault({}),
});
export type AlertSinkConfig = z.output<typeof alertSink>;

const listenAddress = z.string().regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]*):\d{1,5}$/, 'must be HOST:PORT (e.g. 0.0.0.0:9810 or :9810)');

/**
 * Several replicas splitting the targets: each polls the targets the consistent hash of their name
 * gives its shard. The shard usually comes from a flag (`--shard`, or `--pod` in a StatefulSet).
 */
const sharding = z
  .strictObject({
    total_shards: z.number().int().min(1).max(1000),
    shard: z.number().int().min(0).optional(),
  })
  .refine((s) => s.shard === undefined || s.shard < s.total_shards, { path: ['shard'], message: 'must be below total_shards (shards are numbered from 0)' });

export const configSchema = z.strictObject({
  web: z.strictObject({ listen_address: listenAddress.default('0.0.0.0:9810') }).default({ listen_address: '0.0.0.0:9810' }),
  secrets: z.array(secretsTarget).default([]).superRefine(uniqueNames),
  agents: z.array(agentTarget).default([]).superRefine(uniqueNames),
  teams: z.array(teamsTarget).default([]).superRefine(uniqueNames),
  alert_sink: alertSink.optional(),
  sharding: sharding.optional(),
});

export type Config = z.output<typeof configSchema>;
export { listenAddress };
