import { z } from 'zod';
import { cronExpression, keptAtMost } from '../../config-fields/fields.js';
import { SNAPSHOT_NAME } from './raft-snapshot-configs.js';

/** Names of automated snapshot configurations a target may list in its config. */
const MAX_CONFIGURED_NAMES = 64;

const name = z.string().regex(SNAPSHOT_NAME, 'a snapshot configuration name is 1-128 characters without "/" or spaces');

/**
 * A secrets target's automated raft snapshots: the configurations named, and those found by listing
 * where the token may (sudo), each polled for its status on the block's own schedule.
 */
export const snapshotsField = z
  .strictObject({
    /** The configurations' names, as `sys/storage/raft/snapshot-auto/config/<name>` has them. */
    names: z
      .array(name)
      .max(MAX_CONFIGURED_NAMES)
      .refine((n) => new Set(n).size === n.length, 'each name at most once')
      .default([]),
    /** Also poll every configuration the listing names (needs sudo on the config path; refused, the names above stand). */
    list: z.boolean().default(false),
    /** Absent: every minute; a snapshot's interval is hours, its status changes no faster. */
    schedule: cronExpression.default('0 * * * * *'),
    /** Configurations polled and given series, the configured ones first. */
    max_names: keptAtMost(16, 256, 1),
  })
  .refine((s) => s.names.length > 0 || s.list, { message: 'names no snapshot configuration: list them in names, or set list: true' })
  .optional();
