import { z } from 'zod';
import { COLLECTORS } from '../collectors/index.js';
import { alertSink } from '../config-fields/alert-sink.js';
import { uniqueNames } from '../config-fields/fields.js';
import { proxySettings } from '../config-fields/target-proxy.js';

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

type Collectors = (typeof COLLECTORS)[number];

/** One list of targets per collector, under its `kind`: each target's schema is its collector's, with the switches of its optional endpoints. */
const targetLists = Object.fromEntries(COLLECTORS.map((c) => [c.kind, z.array(c.target).default([]).superRefine(uniqueNames).superRefine(proxySettings)])) as {
  [C in Collectors as C['kind']]: z.ZodDefault<z.ZodArray<C['target']>>;
};

/** The whole config file: the web listener, one list of targets per upstream, the alert sink and sharding. */
export const configSchema = z.strictObject({
  web: z.strictObject({ listen_address: listenAddress.default('0.0.0.0:9810') }).default({ listen_address: '0.0.0.0:9810' }),
  ...targetLists,
  alert_sink: alertSink.optional(),
  sharding: sharding.optional(),
});

export type Config = z.output<typeof configSchema>;
export { listenAddress };
