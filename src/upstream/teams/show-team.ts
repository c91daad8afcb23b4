import { z } from 'zod';
import { teamResource } from './team-resource.js';

/** `GET /api/v2/teams/<team_id>`: one team, with every organization-access flag the release has. */
export const showTeamResponse = z.object({ data: teamResource });
