/**
 * The faults the demo offers, as the commands a user pastes: what each injects, how to clear it,
 * and the rows of the paging matrix it makes (simulators/alerting/failure-classes/), whose alerts
 * the demo names with when each pages or reaches vigil's history.
 */
export interface DemoFault {
  what: string;
  inject: string;
  clear?: string;
  /** Every failure class the fault makes, the cause first: each raises its row's alert. */
  classes: string[];
  /** For a fault that must page nobody (no class): the control rows of the matrix it makes, which raise nothing. */
  controls?: string[];
  /** The schedule of the target it hits, in seconds: the team service is listed less often. */
  pollSeconds?: number;
}
