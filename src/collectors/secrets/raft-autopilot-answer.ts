import { z } from 'zod';
import { SeriesCap } from '../../metrics/series-cap.js';
import { decode } from '../../upstream/decode.js';
import { parseBody, textOf } from '../../upstream/parse.js';
import { boolish, goDurationSeconds, lenient, numberish } from '../../upstream/schema-helpers.js';
import { enveloped, snakeKeys } from './node-answers.js';

/**
 * `GET /v1/sys/storage/raft/autopilot/state` (1.7+, integrated storage only): the raft cluster as
 * autopilot sees it. Answered at the top level in the documentation, inside `data` by the servers, in
 * CamelCase by 1.7 and 1.8: all read alike. `servers` is essential (the answer is about them); every
 * other field costs only its own series.
 */
const text = lenient(z.string());
const count = lenient(numberish);
const server = z.preprocess(
  snakeKeys,
  z.object({
    id: text,
    name: text,
    address: text,
    node_status: text,
    last_contact: z
      .unknown()
      .optional()
      .transform((v) => goDurationSeconds(v === '' ? undefined : v)),
    last_term: count,
    last_index: count,
    healthy: lenient(boolish),
    status: text,
    version: text,
    node_type: text,
  }),
);

const autopilotState = enveloped(
  'servers',
  z.object({
    healthy: lenient(boolish),
    failure_tolerance: count,
    optimistic_failure_tolerance: count,
    leader: text,
    voters: lenient(z.array(z.string())),
    servers: z.record(z.string(), server),
  }),
);
/** Autopilot not running yet (a cluster still forming) answers with no body. */
export const autopilotStateResponse = autopilotState.nullish();
export type AutopilotState = z.output<typeof autopilotState>;
export type RaftServer = AutopilotState['servers'][string];

/**
 * What vigil keeps of one autopilot answer: what it says of the whole cluster, counted over every
 * server it lists, and at most `max` servers with series of their own, keyed by id (the leader and
 * the unhealthy ones first). A raft cluster runs 3, 5 or 7 voters; an answer listing thousands is no
 * cluster's, and costs its parse and one pass, never a series or a lookup per server.
 */
export interface AutopilotView extends Omit<AutopilotState, 'servers' | 'voters'> {
  readonly servers: Readonly<Record<string, RaftServer>>;
  /** The leader's last index: of the server `leader` names, else of the one whose status says leader. */
  readonly leaderIndex: number | undefined;
  /** Voters: the answer's list, else the servers whose status is leader or voter. */
  readonly voters: number;
  /** Servers listed beyond `max`: without series of their own. */
  readonly dropped: number;
}

export function autopilotView(s: AutopilotState, max: number): AutopilotView {
  const all = Object.entries(s.servers).map(([key, v]): [string, RaftServer] => [v.id ?? key, v]);
  let named: [string, RaftServer] | undefined;
  let leading: [string, RaftServer] | undefined;
  let voting = 0;
  for (const entry of all) {
    const [id, v] = entry;
    if (id === s.leader) named ??= entry;
    if (v.status === 'leader') leading ??= entry;
    if (v.status === 'leader' || v.status === 'voter') voting++;
  }
  const leader = named ?? leading;
  // Under the bound, every server in the answer's order; over it, the leader, then the unhealthy ones, then the others.
  let kept = all;
  if (all.length > max) {
    const cap = new SeriesCap<[string, RaftServer]>(max, (e) => e === leader || e[1].healthy !== true);
    if (leader) cap.offer(leader);
    for (const entry of all) if (entry !== leader) cap.offer(entry);
    kept = cap.kept();
  }
  return {
    healthy: s.healthy,
    failure_tolerance: s.failure_tolerance,
    optimistic_failure_tolerance: s.optimistic_failure_tolerance,
    leader: s.leader,
    servers: Object.fromEntries(kept),
    leaderIndex: leader?.[1].last_index,
    voters: s.voters?.length ?? voting,
    dropped: all.length - kept.length,
  };
}

/** One answer as received, and how many servers vigil keeps of it. */
export interface AutopilotInput {
  body: Uint8Array;
  max: number;
}

/** Decodes, reads and bounds an answer: pure, so that a large one runs on a decoding thread. */
export function decodeAutopilotState({ body, max }: AutopilotInput): AutopilotView | null | undefined {
  const id = 'secrets/raft-autopilot-state';
  const state = parseBody(autopilotStateResponse, decode(textOf(body), id), id);
  return state && autopilotView(state, max);
}
