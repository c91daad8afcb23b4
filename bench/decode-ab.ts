/**
 * Decoding that builds only what is read, against JSON.parse + schema, on the two large answers: a
 * page of 100 teams (~270 kB, as the service sends them) and a gossip pool of 5,000 members. Each
 * candidate runs in turn, several rounds, in one process; CPU time per answer (process.cpuUsage).
 *
 *   node --import tsx bench/decode-ab.ts
 */
import { z } from 'zod';
import { memberPollFamilies } from '../src/collectors/agent/members.js';
import { membersPoll } from '../src/collectors/agent/members.js';
import { renderGroup } from '../src/metrics/render.js';
import { agentMembersResponse } from '../src/collectors/agent/members.js';
import { teamResource, toTeam, type Team } from '../src/collectors/teams/team-resource.js';
import { decodeTeamsPage } from '../src/collectors/teams/list.js';
import { parseBody } from '../src/upstream/parse.js';
import { membersBody, teamsPage } from './decode/large-answers.js';
import { SkipScanner } from './decode/skip-scanner.js';

/** A team read by the scanner: only the keys the schema uses are built, each still checked by the schema's own field types. */
function scanTeam(sc: SkipScanner): Team {
  const raw: { id?: unknown; type?: unknown; attributes: Record<string, unknown> } = { attributes: {} };
  sc.object((k) => {
    if (k === 'id' || k === 'type') raw[k] = sc.value();
    else if (k === 'attributes')
      sc.object((a) => {
        if (a === 'name' || a === 'sso-team-id' || a === 'users-count' || a === 'visibility' || a === 'organization-access') raw.attributes[a] = sc.value();
      });
  });
  return toTeam(teamResource.parse(raw));
}

function scanTeamsPage(body: Buffer) {
  const sc = new SkipScanner(body.toString('utf8'));
  const teams: Team[] = [];
  let links: unknown;
  let meta: unknown;
  sc.object((k) => {
    if (k === 'data') sc.array(() => teams.push(scanTeam(sc)));
    else if (k === 'links') links = sc.value();
    else if (k === 'meta') meta = sc.value();
  });
  return { teams, links, meta };
}

const memberScanned = z.object({ Name: z.string(), Status: z.string(), Addr: z.unknown(), Tags: z.unknown() });
function scanMembers(body: Buffer) {
  const sc = new SkipScanner(body.toString('utf8'));
  const members: unknown[] = [];
  sc.object((k) => {
    if (k === 'Members')
      sc.array(() => {
        const m: Record<string, unknown> = {};
        sc.object((f) => {
          if (f === 'Name' || f === 'Status' || f === 'Addr' || f === 'Tags') m[f] = sc.value();
        });
        members.push(memberScanned.parse(m));
      });
  });
  return parseBody(agentMembersResponse, { Members: members }, 'agent/members');
}

const pool5000 = parseBody(agentMembersResponse, JSON.parse(membersBody.toString('utf8')), 'agent/members').Members;

const cpuMs = (f: () => unknown, n: number) => {
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000 / n;
};

const candidates: Array<[string, () => unknown, number]> = [
  ['teams page: JSON.parse + schema (today)', () => decodeTeamsPage({ body: teamsPage }), 200],
  ['teams page: skip scanner + schema on what is read', () => scanTeamsPage(teamsPage), 200],
  ['gossip pool: JSON.parse + schema (today, no render)', () => parseBody(agentMembersResponse, JSON.parse(membersBody.toString('utf8')), 'agent/members'), 20],
  ['gossip pool: skip scanner + schema on what is read', () => scanMembers(membersBody), 20],
  ['gossip pool: the whole poll today (decode, schema, render)', () => membersPoll({ body: membersBody, max: 20_000, context: { target: 's' } }), 20],
  [
    'gossip pool: render only (member_status, member_info, counts)',
    () => renderGroup(memberPollFamilies, { members: pool5000, kept: pool5000, droppedTotal: 0 }, { target: 's' }),
    20,
  ],
];
// Same output first: the candidate must read what today's decoder reads.
const same = JSON.stringify(scanTeamsPage(teamsPage).teams) === JSON.stringify(decodeTeamsPage({ body: teamsPage }).teams);
process.stdout.write(`teams page ${teamsPage.length} bytes, gossip pool ${membersBody.length} bytes; scanner reads the same teams: ${same}\n`);
const rounds = new Map<string, number[]>();
for (let r = 0; r < 5; r++) for (const [name, f, n] of candidates) rounds.set(name, [...(rounds.get(name) ?? []), cpuMs(f, n)]);
for (const [name, xs] of rounds) {
  const sorted = [...xs].sort((a, b) => a - b);
  process.stdout.write(`${name}: median ${sorted[2]?.toFixed(2)} ms CPU (rounds ${xs.map((x) => x.toFixed(2)).join(' ')})\n`);
}
