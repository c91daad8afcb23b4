import { family, upFamily, type Family } from '../../metrics/family.js';
import type { HaNode } from '../../upstream/secrets/ha-status.js';

/** The HA status's node list, each node named as vigil polls it: what the job discovers nodes from, and their echo and clock skew. */
export interface HaView {
  nodes: Array<HaNode & { node: string | undefined }>;
}

const FROM_HA = "from sys/ha-status as the cluster's configured address answers it; absent when not reported";
const perNode = (value: (n: HaNode) => number | undefined) => (v: HaView) =>
  v.nodes.flatMap((n) => {
    const x = value(n);
    return n.node === undefined || x === undefined ? [] : [{ labels: { node: n.node }, value: x }];
  });

export const haStatusUp = upFamily({
  name: 'secrets_ha_status_up',
  help: "1 when the last sys/ha-status poll of the cluster's configured address succeeded and parsed, else 0; absent when the service refuses it (403: the token lacks read on sys/ha-status) or has no such endpoint (404, before 1.10).",
  section: 'secrets',
  labels: ['target'],
});

export const haStatusFamilies: readonly Family<HaView>[] = [
  family<HaView>({
    name: 'secrets_node_clock_skew_seconds',
    help: `How far the node's clock is off the active node's (clock_skew_ms, 1.16+), in seconds; ${FROM_HA}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'node'],
    samples: perNode((n) => (n.clock_skew_ms === undefined ? undefined : n.clock_skew_ms / 1000)),
  }),
  family<HaView>({
    name: 'secrets_node_last_echo_timestamp_seconds',
    help: `When the active node last heard the node's echo, as Unix time (none for the active node itself); ${FROM_HA}.`,
    type: 'gauge',
    section: 'secrets',
    labels: ['target', 'node'],
    samples: perNode((n) => n.last_echo),
  }),
];
