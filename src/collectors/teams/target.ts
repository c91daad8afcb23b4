import { z } from 'zod';
import { keptAtMost, readableFile, size, targetFields } from '../../config-fields/fields.js';
import { TEAMS_MAX_PAGE_SIZE } from './pages.js';

/** An organization of the team-management service; its token is required. */
export const teamsTarget = z.strictObject({
  ...targetFields('0 */5 * * * *'),
  /** Every request needs a token; an organization token sees every team, a member token only some. */
  token_file: readableFile,
  organization: z.string().min(1),
  page_size: z.number().int().min(1).max(TEAMS_MAX_PAGE_SIZE).default(TEAMS_MAX_PAGE_SIZE),
  /** Below the service's 30 per token, so vigil leaves room for other clients of the same token. */
  requests_per_second: z.number().positive().max(1000).default(25),
  /** Teams with their own series (users, info, inconsistency); further teams are only counted, never held. */
  max_teams: keptAtMost(10_000, 1_000_000),
  /** Bound on one listing, against a server whose pagination never ends. */
  max_pages: z.number().int().min(1).default(1000),
  /** Bound on the bytes of one listing's pages together: max_pages pages of the service's ~270 kB. */
  max_listing_size: size('256MiB'),
  /** The team whose users own the organization; its users-count is watched for a sudden loss. */
  owners_team: z.string().min(1).default('owners'),
  /** A loss of more than this share of the teams, or of the owners team's users, within an hour alerts. */
  loss_alert_fraction: z.number().gt(0).max(1).default(0.2),
});
export type TeamsTarget = z.output<typeof teamsTarget>;
