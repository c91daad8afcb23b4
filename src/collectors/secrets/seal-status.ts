import { z } from 'zod';
import { family, single, upFamily, type Family } from '../../metrics/family.js';
import { boolish, lenient, lenientString, numberish } from '../../upstream/schema-helpers.js';
import { endpoint } from '../endpoint.js';

/**
 * `GET /v1/sys/seal-status` of one node: unauthenticated, answered sealed or not, about the node that
 * answers. `t` and `n` are the unseal key shares needed and made (the recovery keys' under an auto
 * seal), `progress` the shares entered so far into an unseal in progress (0 when none is). Older
 * servers leave out `storage_type` (before 1.3), `recovery_seal` and `initialized` (before 0.10):
 * each costs only the series it feeds. The `nonce` of an unseal in progress is never read.
 */
const count = lenient(numberish);
/** A seal or storage type is a word; the bound keeps a hostile answer's text out of a label. */
const kind = lenientString.transform((v) => (v === undefined ? undefined : v.slice(0, 64)));

export const sealStatusResponse = z.object({
  type: kind,
  sealed: lenient(boolish),
  t: count,
  n: count,
  progress: count,
  recovery_seal: lenient(boolish),
  storage_type: kind,
});
export type SealStatus = z.output<typeof sealStatusResponse>;

const NODE = ['target', 'node', 'address'] as const;
const FROM = "from the node's own sys/seal-status answer";

export const sealStatusUp = upFamily({
  name: 'secrets_node_seal_status_up',
  help: "1 when the node answered sys/seal-status at its own address and the answer parsed, else 0. `node` is the node's name as the cluster reports it (its raft node ID, else its HA hostname, else its address), `address` the API address vigil polls it at.",
  section: 'secrets',
  labels: [...NODE],
});

const gauge = (name: string, help: string, value: (s: SealStatus) => number | undefined): Family<SealStatus> =>
  family<SealStatus>({ name, help: `${help}; ${FROM}.`, type: 'gauge', section: 'secrets', labels: [...NODE], samples: single(value) });

export const sealStatusFamilies: readonly Family<SealStatus>[] = [
  gauge('secrets_node_unseal_threshold', 'Key shares an unseal of the node needs (t; the recovery keys under an auto seal)', (s) => s.t),
  gauge('secrets_node_unseal_shares', 'Key shares the root key was split into (n; the recovery keys under an auto seal)', (s) => s.n),
  gauge(
    'secrets_node_unseal_progress',
    'Key shares entered so far into an unseal of the node in progress (progress); 0 when none is in progress',
    (s) => s.progress,
  ),
  family<SealStatus>({
    name: 'secrets_node_seal_info',
    help: `The node's seal (always 1): its type (shamir, an auto seal's KMS, multiseal for Seal HA), whether its keys are recovery keys (an auto seal) and its storage type; a label whose field the answer leaves out is empty; ${FROM}.`,
    type: 'gauge',
    section: 'secrets',
    labels: [...NODE, 'type', 'recovery_seal', 'storage_type'],
    samples: (s) => [
      {
        labels: { type: s.type ?? '', recovery_seal: s.recovery_seal === undefined ? '' : String(s.recovery_seal), storage_type: s.storage_type ?? '' },
        value: 1,
      },
    ],
  }),
];

/** The node's seal: how many key shares an unseal takes, how far one in progress got, and the seal's type. */
export const sealStatusEndpoint = endpoint({
  id: 'secrets/seal-status',
  method: 'GET',
  path: '/v1/sys/seal-status',
  schema: sealStatusResponse,
  needs: 'none: unauthenticated per the API',
  up: sealStatusUp,
  families: sealStatusFamilies,
});
