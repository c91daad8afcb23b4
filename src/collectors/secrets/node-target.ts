import { z } from 'zod';
import { cronExpression, duration, httpUrl, keptAtMost } from '../../config-fields/fields.js';
import { fillTemplate, MAX_NODES, TEMPLATE_VARIABLES, unknownVariables } from './node-addresses.js';
import { tokenHost } from './token-reach.js';

const template = z.string().superRefine((t, ctx) => {
  const unknown = unknownVariables(t);
  const known = TEMPLATE_VARIABLES.map((v) => `{{${v}}}`).join(', ');
  if (unknown.length) ctx.addIssue({ code: 'custom', message: `unknown variable ${unknown.map((v) => `{{${v}}}`).join(', ')} (use ${known})` });
  else if (!TEMPLATE_VARIABLES.some((v) => new RegExp(`\\{\\{\\s*${v}\\s*\\}\\}`).test(t))) {
    ctx.addIssue({ code: 'custom', message: `names no node: use ${known} (a fixed list goes in addresses)` });
  } else if (!fillTemplate(t, { hostname: 'node-1', address: 'https://10.0.0.1:8200' })) {
    ctx.addIssue({ code: 'custom', message: `does not make an http or https URL without credentials ("${t}")` });
  }
});

const sendTokenTo = z
  .array(
    z.string().refine((e) => tokenHost(e) !== undefined, {
      error: (iss) => `"${String(iss.input)}" is no host (vault-1.internal), suffix (.vault.internal) or CIDR (10.0.0.0/24)`,
    }),
  )
  .max(64)
  .default([]);

/**
 * The audited request vigil makes at each node (its token's lookup-self) beside the unaudited
 * sys/health: a node that answers its health while the request times out or fails with a server
 * error cannot log to its audit devices (docs/configuration-secrets-nodes.md, "Blocked audit devices").
 */
const auditCheck = z
  .strictObject({
    /** On targets with a token_file: one more request per node per run, and at the configured address. */
    enabled: z.boolean().default(true),
    /** A lookup answers in milliseconds; one that takes this long is blocked. */
    timeout: duration('3s'),
    /** Discovered nodes the token may go to (hosts, `.suffixes`, CIDRs); listed and templated nodes, and the configured address, always. */
    send_token_to: sendTokenTo,
  })
  .prefault({});

/**
 * A secrets target's nodes: found from what the cluster reports (on by default), or listed, or
 * addressed by a template where the advertised addresses cannot be reached from vigil.
 */
export const nodesField = z
  .strictObject({
    /** Poll every node of the cluster at its own address. */
    enabled: z.boolean().default(true),
    /** Absent: the target's own `schedule`. Each run costs three requests to the cluster's address and, at each node, its health and, when it answers, its seal and seal backends. */
    schedule: cronExpression.optional(),
    /** The nodes' API addresses, instead of what the cluster reports. */
    addresses: z
      .array(httpUrl)
      .min(1)
      .max(64)
      .refine((a) => new Set(a).size === a.length, 'each address at most once')
      .optional(),
    /** How to reach a reported node: `https://{{hostname}}:8200`, `https://{{host}}.internal:8200`. */
    address_template: template.optional(),
    /** Raft servers of the autopilot state with series of their own (a cluster runs 3 to 7 voters, plus its non-voters). */
    max_raft_servers: keptAtMost(100, 10_000, 1),
    /** Nodes polled per cluster, and of the HA status given series: the active node first. */
    max_nodes: keptAtMost(MAX_NODES, 256, 1),
    audit_check: auditCheck,
  })
  .refine((n) => !(n.addresses && n.address_template), {
    message: 'addresses and address_template exclude each other: list the nodes, or say how to reach the reported ones',
  })
  .prefault({});
