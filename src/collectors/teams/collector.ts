import { defineCollector } from '../collector.js';
import { call, derive, type Plan } from '../plan.js';
import { lossFractionFamily } from './access-holders.js';
import { teamsCall, type TeamsCall } from './call.js';
import { listEndpoint } from './list.js';
import { showEndpoint } from './show.js';
import { teamsTarget, type TeamsTarget } from './target.js';

const list = call(listEndpoint);

/** One listing of every team of the organization (each team shown where its list entry lacks a flag, when switched on). */
export const teamsPlan: Plan<TeamsTarget, TeamsCall> = {
  job: 'teams',
  schedule: { of: (t) => t.schedule, key: 'schedule' },
  steps: [
    list,
    call(showEndpoint, { within: { step: list, says: 'once per team whose list entry lacks an organization-access flag' } }),
    derive({ name: 'loss_fraction', families: [lossFractionFamily], value: (t: TeamsTarget) => t.loss_alert_fraction }),
  ],
};

/** The team-management service: every team of an organization, its members and its access. */
export const teamsCollector = defineCollector({
  kind: 'teams',
  target: teamsTarget,
  plans: [teamsPlan],
  context: (t) => ({ target: t.name, organization: t.organization }),
  call: (t, ctx) => teamsCall(t, ctx),
  state: () => undefined,
});
