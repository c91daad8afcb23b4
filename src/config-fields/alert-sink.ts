import { z } from 'zod';
import { duration, optionalSize, readableFile, size } from './fields.js';
import { postgresStore } from './postgres-store.js';

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

/** The alert sink's keys; alertSink adds the checks across them. */
const alertSinkKeys = z.strictObject({
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
  /**
   * Notifications held at once, from their first byte until the store has committed them (or
   * failed): their count and the bytes of their bodies. One more is answered 503 (Alertmanager
   * retries) before it is read. The bytes default keeps the sink well inside the shipped 512 MiB
   * memory limit (docs/alert-sink.md#how-much-the-sink-holds).
   */
  max_in_flight: z.number().int().min(1).max(10_000).default(64),
  max_in_flight_size: size('16MiB'),
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

/** The webhook alert sink. Absent means off: no database is created and no Watchdog is expected. */
export const alertSink = alertSinkKeys.superRefine((s, ctx) => {
  // A notification of body_limit bytes must fit beside others, or a stream of small ones would keep it out.
  if (s.max_in_flight_size < s.body_limit)
    ctx.addIssue({
      code: 'custom',
      path: ['max_in_flight_size'],
      message: `must be at least body_limit (${s.body_limit} bytes): a notification of body_limit bytes must fit`,
    });
});
export type AlertSinkConfig = z.output<typeof alertSink>;
