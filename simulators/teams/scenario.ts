import { z } from 'zod';

export interface OrganizationSpec {
  name: string;
  /** Generated teams team-0001..: mixed visibility and sizes, some with organization access, a few legacy rule breakers. */
  teams: number;
  /** Same seed, same ids, tokens and teams. */
  seed?: number;
  /**
   * Users of its owners team (`owners`, secret, after the generated teams), whose token acts as an
   * owner, as the service's every organization has one; absent: no owners team.
   */
  owners?: number;
}

export interface TeamsScenario {
  organizations: OrganizationSpec[];
  /** Per token; default 30. */
  rateLimit?: { perSecond: number };
  /** Default 100; a larger page[size] is clamped to it. */
  maxPageSize?: number;
}

export const ORGANIZATION_NAME = /^[A-Za-z0-9_-]+$/;
/** Generation is eager; this bound keeps a typo in a scenario file from eating the machine. */
export const MAX_TEAMS_PER_ORGANIZATION = 100_000;

export const organizationSpecSchema = z.object({
  name: z.string().regex(ORGANIZATION_NAME, 'letters, numbers, - and _ only'),
  teams: z.number().int().min(0).max(MAX_TEAMS_PER_ORGANIZATION),
  seed: z.number().int().optional(),
  owners: z.number().int().min(0).max(1000).optional(),
});

const scenarioSchema = z
  .object({
    organizations: z.array(organizationSpecSchema),
    rateLimit: z.object({ perSecond: z.number().positive() }).optional(),
    maxPageSize: z.number().int().positive().optional(),
  })
  .refine((s) => new Set(s.organizations.map((o) => o.name)).size === s.organizations.length, 'organization names must be unique');

/** Checks a scenario (from code or from a JSON file); throws with every problem listed. */
export function parseScenario(input: unknown): TeamsScenario {
  const parsed = scenarioSchema.safeParse(input);
  if (!parsed.success) throw new Error(`invalid teams scenario: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export function demoTeamsScenario(): TeamsScenario {
  return { organizations: [{ name: 'acme', teams: 300, seed: 42, owners: 5 }] };
}
