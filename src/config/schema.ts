import { z } from 'zod';
import { duration, optionalSize, readableFile, schedule, size, targetFields, uniqueNames } from './fields.js';

export const REPLICATION_KINDS = ['performance', 'dr'] as const;
export type ReplicationKind = (typeof REPLICATION_KINDS)[number];

const secretsTarget = z.strictObject({
  ...targetFields('*/15 * * * * *'),
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

/** Where the Docker image mounts its volume; relative paths are taken from the working directory. */
export const DEFAULT_ALERT_STORE_PATH = '/var/lib/vigil/alerts.db';

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
  store: z
    .strictObject({
      path: z.string().min(1, 'must not be empty').default(DEFAULT_ALERT_STORE_PATH),
      retention: duration('30d'),
      prune_interval: duration('1h'),
      /** A cap on the database file; a full store answers 507 and Alertmanager retries. */
      max_size: optionalSize,
    })
    .prefault({}),
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
  // Accepted (and possibly empty) until their collectors land; each gets a strict schema then.
  agents: z.array(z.record(z.string(), z.unknown())).default([]),
  teams: z.array(z.record(z.string(), z.unknown())).default([]),
  alert_sink: alertSink.optional(),
});

export type Config = z.output<typeof configSchema>;
export { listenAddress };
