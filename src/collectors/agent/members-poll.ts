import { copyEncodedGroup, encodeGroup, type EncodedLines } from '../../metrics/encoded-lines.js';
import type { Holding } from '../../upstream/answer-memo.js';
import type { Labels } from '../../metrics/family.js';
import { renderGroup } from '../../metrics/render.js';
import { agentMember, agentMembersEssentials, agentMembersResponse } from '../../upstream/agent/members.js';
import { decode } from '../../upstream/decode.js';
import { parseBody, textOf } from '../../upstream/parse.js';
import { limitMembers, memberPollFamilies } from './members.js';

/** One `/agent/members` answer as received, and what rendering it needs. */
export interface MembersPollInput {
  /** The body's bytes (moved to a worker thread for a large pool, not copied). */
  body: Uint8Array;
  max: number;
  context: Labels;
}

/**
 * What one poll renders (its lines by family, encoded into one buffer that a worker thread moves
 * back rather than copies), and the counts the target's job keeps across polls.
 */
export interface MembersPoll {
  group: Array<[string, EncodedLines]>;
  members: number;
  dropped: number;
}

const ENDPOINT = 'agent/members';

/**
 * Decodes, validates and renders one `/agent/members` answer: pure, so that a large one can run
 * on a worker thread and a small one in the collection thread with the same result.
 */
export function membersPoll(input: MembersPollInput): MembersPoll {
  const body = decode(textOf(input.body), ENDPOINT);
  const sent = (body as { Members?: unknown } | undefined)?.Members;
  if (!Array.isArray(sent) || sent.length <= input.max) {
    const m = parseBody(agentMembersResponse, body, ENDPOINT);
    const group = renderGroup(memberPollFamilies, { members: m.Members, kept: m.Members, droppedTotal: 0 }, input.context);
    return { group: encodeGroup(group), members: m.Members.length, dropped: 0 };
  }
  // Over the cap: every member is counted, only those kept are read whole (each can no longer fail).
  const m = parseBody(agentMembersEssentials, body, ENDPOINT);
  const { kept, dropped } = limitMembers(m.Members, input.max);
  const group = renderGroup(memberPollFamilies, { members: m.Members, kept: kept.map((k) => agentMember.parse(k)), droppedTotal: 0 }, input.context);
  return { group: encodeGroup(group), members: m.Members.length, dropped };
}

const copyPoll = (poll: MembersPoll): MembersPoll => ({ ...poll, group: copyEncodedGroup(poll.group) });

/**
 * An unchanged pool's poll is reused, but its lines' buffer is moved to the main thread once
 * committed: the memo keeps a copy of its own and hands out a fresh one each time.
 */
export const membersPollHolding: Holding<MembersPoll> = { keep: copyPoll, give: copyPoll };
