import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Fleet } from './fleet.js';
import { enablePrimary, issueSecondaryToken } from './replication-primary.js';
import { enableSecondary } from './replication-secondary.js';
import type { SnapshotSupport } from './snapshots.js';

export interface ReplicationLink {
  kind: 'performance' | 'dr';
  primary: string;
  secondaries: string[];
}

export interface SecretsScenario {
  /**
   * port 0 or absent: a free port. nodes: how many (each a raft voter; default 3; up to 64, the nodes vigil polls), the first one
   * active. sealBackends: the names of two or three auto seals under Seal HA; absent: one Shamir seal.
   * snapshots: its automated raft snapshot configurations (interval default 3600 s); snapshotSupport: `community` (404) or
   * `no-raft` (400) for a cluster where they do not apply. unauthenticatedMetricsAccess: every node's listener serves
   * `sys/metrics` without a token (default false; `/_sim/telemetry` sets it per node).
   */
  clusters: Array<{
    name: string;
    port?: number;
    nodes?: number;
    sealBackends?: string[];
    snapshots?: Array<{ name: string; intervalSeconds?: number }>;
    snapshotSupport?: SnapshotSupport;
    unauthenticatedMetricsAccess?: boolean;
  }>;
  replication?: ReplicationLink[];
}

const scenarioSchema = z
  .object({
    clusters: z
      .array(
        z.object({
          // Names end up in cluster addresses, so they must be host-name safe.
          name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'cluster names use letters, digits, "-" and "_"'),
          port: z.number().int().min(0).max(65535).optional(),
          nodes: z.number().int().min(1).max(64).optional(),
          // Seal HA takes at least two seals and at most three; names are the seals' `name` settings.
          sealBackends: z
            .array(z.string().regex(/^[A-Za-z0-9_-]+$/, 'seal backend names use letters, digits, "-" and "_"'))
            .min(2)
            .max(3)
            .refine((names) => new Set(names).size === names.length, 'seal backend names must differ')
            .optional(),
          snapshots: z
            .array(
              z.object({
                name: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'snapshot names use letters, digits, ".", "-" and "_"'),
                intervalSeconds: z.number().int().min(1).optional(),
              }),
            )
            .max(64)
            .optional(),
          snapshotSupport: z.enum(['enterprise', 'community', 'no-raft']).optional(),
          unauthenticatedMetricsAccess: z.boolean().optional(),
        }),
      )
      .min(1),
    replication: z.array(z.object({ kind: z.enum(['performance', 'dr']), primary: z.string(), secondaries: z.array(z.string()) })).optional(),
  })
  .superRefine((s, ctx) => {
    const names = s.clusters.map((c) => c.name);
    const duplicate = names.find((n, i) => names.indexOf(n) !== i);
    if (duplicate !== undefined) ctx.addIssue({ code: 'custom', message: `duplicate cluster name "${duplicate}"` });
    for (const link of s.replication ?? []) {
      for (const name of [link.primary, ...link.secondaries]) {
        if (!names.includes(name)) ctx.addIssue({ code: 'custom', message: `replication names unknown cluster "${name}"` });
      }
    }
  });

export function parseScenario(value: unknown): SecretsScenario {
  const result = scenarioSchema.safeParse(value);
  if (!result.success) throw new Error(`invalid secrets scenario: ${result.error.issues.map((i) => i.message).join('; ')}`);
  return result.data;
}

export async function loadScenarioFile(file: string): Promise<SecretsScenario> {
  return parseScenario(JSON.parse(await readFile(file, 'utf8')));
}

/** The demo's cluster of three nodes, polled with a token that may read its HA status and autopilot. */
export const DEMO_NODES_CLUSTER = 'three-nodes';

export function demoSecretsScenario(): SecretsScenario {
  return {
    clusters: [{ name: 'dr-primary' }, { name: 'dr-secondary' }, { name: 'perf-primary' }, { name: 'perf-secondary' }],
    replication: [
      { kind: 'dr', primary: 'dr-primary', secondaries: ['dr-secondary'] },
      { kind: 'performance', primary: 'perf-primary', secondaries: ['perf-secondary'] },
    ],
  };
}

/** The seals of the demo's cluster of three nodes: Seal HA over an HSM and a transit seal, as the API documents it. */
export const DEMO_SEAL_BACKENDS = ['hsm', 'transit'];

/** The automated snapshots of the demo's cluster of three: a daily and an hourly one. */
export const DEMO_SNAPSHOTS = [{ name: 'daily', intervalSeconds: 86_400 }, { name: 'hourly' }];

/** The demo's clusters, and a cluster of three raft voters under Seal HA, with automated snapshots, its node faults act on. */
export function demoWithNodesScenario(): SecretsScenario {
  const demo = demoSecretsScenario();
  return {
    ...demo,
    clusters: [...demo.clusters, { name: DEMO_NODES_CLUSTER, nodes: 3, sealBackends: DEMO_SEAL_BACKENDS, snapshots: DEMO_SNAPSHOTS }],
  };
}

/** Same steps an operator takes over the API: enable the primary, issue a token per secondary, enable it. */
export function applyReplication(fleet: Fleet, links: ReplicationLink[]): void {
  const cluster = (name: string) => {
    const found = fleet.clusters.get(name);
    if (!found) throw new Error(`scenario names unknown cluster "${name}"`);
    return found;
  };
  for (const link of links) {
    const primary = cluster(link.primary);
    try {
      enablePrimary(primary, link.kind);
      for (const name of link.secondaries) {
        const token = issueSecondaryToken(fleet, primary, link.kind, name, 30 * 60);
        enableSecondary(fleet, cluster(name), link.kind, token);
      }
    } catch (err) {
      throw new Error(`scenario ${link.kind} replication from "${link.primary}": ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}
