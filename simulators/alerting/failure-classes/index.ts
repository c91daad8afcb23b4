import { AGENT_CLASSES } from './agents.js';
import type { FailureClass } from './failure-class.js';
import { SECRETS_NODE_CLASSES } from './secrets-nodes.js';
import { SECRETS_CLASSES } from './secrets.js';
import { TEAMS_CLASSES } from './teams.js';
import { TELEMETRY_CLASSES } from './telemetry.js';
import { VIGIL_CLASSES } from './vigil.js';
import { WORKLOAD_CLASSES } from './workload.js';

export type { FailureClass } from './failure-class.js';

/** The paging matrix: every failure vigil can see and the alert that tells of it, in docs/paging.md's order. */
export const FAILURE_CLASSES: readonly FailureClass[] = [
  ...SECRETS_CLASSES,
  ...SECRETS_NODE_CLASSES,
  ...AGENT_CLASSES,
  ...WORKLOAD_CLASSES,
  ...TEAMS_CLASSES,
  ...VIGIL_CLASSES,
  ...TELEMETRY_CLASSES,
];

/**
 * The alerts a cause raises, from the matrix rows it makes (each id a row of FAILURE_CLASSES), in
 * the order given, each once; an unknown id, or a control (a row that must raise nothing), throws.
 */
export function alertsOf(ids: readonly string[]): string[] {
  const alerts = ids.map((id) => {
    const row = FAILURE_CLASSES.find((c) => c.id === id);
    if (!row) throw new Error(`no failure class "${id}" in the paging matrix`);
    if (row.control) throw new Error(`failure class "${id}" is a control: it raises nothing`);
    return row.alert;
  });
  return [...new Set(alerts)];
}
