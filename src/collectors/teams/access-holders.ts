import { family, single, type Family } from '../../metrics/family.js';
import type { TeamsListing } from './tally.js';

/**
 * Who holds access, counted so a mass deletion shows as a drop: the users of the owners team (found
 * by name, whatever max_teams cuts off), and the fraction of loss within an hour the target's config
 * calls alarming (exported so the alert rule can compare per target).
 */
const TO = ['target', 'organization'];

export const ownersTeamFamily: Family<TeamsListing> = family<TeamsListing>({
  name: 'teams_owners_team_users',
  help: 'users-count of the owners team (owners_team in the config, "owners" by default, matched without case); absent when the listing holds no such team; from a scheduled poll of organizations/<organization>/teams.',
  type: 'gauge',
  section: 'teams',
  labels: TO,
  samples: single((l) => l.ownersTeamUsers),
});

export const lossFractionFamily: Family<number> = family<number>({
  name: 'teams_loss_alert_ratio',
  help: 'Share of the teams, or of the owners team users, that may disappear within an hour before TeamsCountDropped or TeamsOwnersDropped fires (loss_alert_fraction in the config).',
  type: 'gauge',
  section: 'teams',
  labels: TO,
  samples: single((f) => f),
});
