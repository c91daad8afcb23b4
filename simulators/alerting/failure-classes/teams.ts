import type { FailureClass } from './failure-class.js';

/** The paging matrix's rows of the area "Team management" (docs/paging.md). */
export const TEAMS_CLASSES: readonly FailureClass[] = [
  { id: 'teams-down', area: 'Team management', failure: 'the service does not answer (refused, hung, 5xx)', alert: 'TeamsServiceDown', proof: 'live' },
  {
    id: 'teams-denied',
    area: 'Team management',
    failure: "the service refuses vigil's token, or rate-limits it",
    alert: 'VigilCollectorFailing',
    proof: 'promtool',
    note: "vigil's operator's",
  },
  { id: 'teams-count-dropped', area: 'Team management', failure: 'many teams are deleted within an hour', alert: 'TeamsCountDropped', proof: 'live' },
  {
    id: 'teams-owners-dropped',
    area: 'Team management',
    failure: 'the owners team loses many users within an hour',
    alert: 'TeamsOwnersDropped',
    proof: 'live',
    note: 'live in test/e2e/paging-owners.test.ts: the hour-long peak it compares with wants a stack of its own',
  },
  { id: 'teams-access', area: 'Team management', failure: "a team's organization access breaks a rule", alert: 'TeamsAccessInconsistent', proof: 'promtool' },
];
