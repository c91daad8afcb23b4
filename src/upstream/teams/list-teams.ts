import { z } from 'zod';
import { numberish } from '../schema-helpers.js';
import { teamResource } from './team-resource.js';

/** `GET /api/v2/organizations/<org>/teams`: one page of teams, and where the next one is. */
const pageNumber = numberish.pipe(z.number().int().min(1));

export const listTeamsResponse = z.object({
  data: z.array(teamResource),
  links: z.object({ next: z.string().nullish() }).nullish(),
  meta: z
    .object({
      pagination: z
        .object({
          'current-page': pageNumber.nullish(),
          'next-page': pageNumber.nullish(),
          'total-pages': numberish.pipe(z.number().int().min(0)).nullish(),
          'total-count': numberish.pipe(z.number().int().min(0)).nullish(),
        })
        .nullish(),
    })
    .nullish(),
});

export type ListTeamsPage = z.output<typeof listTeamsResponse>;
