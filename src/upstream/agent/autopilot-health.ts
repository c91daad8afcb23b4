import { z } from 'zod';
import { boolish, goDurationSeconds, lenient, numberish } from '../schema-helpers.js';

/**
 * `GET /v1/operator/autopilot/health` (operator:read): the servers' raft health as the leader's
 * autopilot sees it. Every field is lenient: one missing or misread costs only the series it feeds.
 * A server entry that is no object is dropped alone; one without a name or id cannot be told apart
 * from the others and is dropped too (its absence never reads as a healthy server).
 */
const server = z
  .object({
    ID: lenient(z.string()),
    Name: lenient(z.string()),
    Address: lenient(z.string()),
    SerfStatus: lenient(z.string()),
    Version: lenient(z.string()),
    Leader: lenient(boolish),
    LastContact: z.unknown().optional().transform(goDurationSeconds),
    LastTerm: lenient(numberish),
    LastIndex: lenient(numberish),
    Healthy: lenient(boolish),
    Voter: lenient(boolish),
  })
  .transform((s) => ({ ...s, key: s.Name || s.ID }));

export type AutopilotServer = z.output<typeof server> & { key: string };

/**
 * The servers read, whether every entry was (a count from a list with a dropped entry would
 * undercount), the voters, and the leader's last index (else the highest): counted over all of them.
 */
const servers = lenient(z.array(z.unknown())).transform((list) => {
  if (list === undefined) return undefined;
  const read = list.flatMap((v) => {
    const r = server.safeParse(v);
    return r.success && r.data.key ? [r.data as AutopilotServer] : [];
  });
  const complete = read.length === list.length;
  const voters = complete && read.every((s) => s.Voter !== undefined) ? read.filter((s) => s.Voter).length : undefined;
  const indices = read.flatMap((s) => (s.LastIndex === undefined ? [] : [s.LastIndex]));
  const head = read.find((s) => s.Leader === true && s.LastIndex !== undefined)?.LastIndex ?? (indices.length ? Math.max(...indices) : undefined);
  return { list: read, complete, voters, head };
});

/** Newer servers also name the leader and the voters at the top (`Leader`, `Voters`): read when present. */
export const autopilotHealthResponse = z.object({
  Healthy: lenient(boolish),
  FailureTolerance: lenient(numberish),
  Leader: lenient(z.string()),
  Voters: lenient(z.array(z.string())),
  Servers: servers,
});

export type AutopilotHealth = z.output<typeof autopilotHealthResponse>;
