/**
 * The CPU of tallying an organization's teams as a listing's pages arrive (`TeamsTally`): at a
 * million series the collection thread tallies 100,000 teams a collection, whether or not a page
 * changed. Teams of every pattern of organization-access flags, in pages of 100; prints the median
 * and the first (before the JIT has warmed) of `--rounds` tallies.
 *
 *   npx tsx bench/teams-tally.ts [--teams=100000] [--rounds=15]
 */
import { parseArgs } from 'node:util';
import { TeamsTally } from '../src/collectors/teams/tally.js';
import { ORGANIZATION_ACCESS, accessFlags, type Team } from '../src/collectors/teams/team-resource.js';

const { values: flags } = parseArgs({ options: { teams: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '15' } } });
const teams: Team[] = Array.from({ length: Number(flags.teams) }, (_, i) => {
  const access: Record<string, boolean> = {};
  ORGANIZATION_ACCESS.forEach((k, j) => {
    if ((i + j) % 3) access[k] = (i * 7 + j) % 5 === 0;
  });
  return { id: `team-${i}`, name: `Team ${i}`, ssoTeamId: '', usersCount: i % 50, visibility: i % 4 ? 'organization' : 'secret', access: accessFlags(access) };
});

const ms: number[] = [];
for (let r = 0; r < Number(flags.rounds); r++) {
  const from = process.cpuUsage();
  const tally = new TeamsTally(500, 'owners');
  for (const t of teams) tally.add(t);
  tally.listing(teams.length / 100, teams.length / 100);
  const used = process.cpuUsage(from);
  ms.push((used.user + used.system) / 1000);
}
const median = [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)] ?? NaN;
process.stdout.write(
  `${JSON.stringify({ teams: teams.length, rounds: ms.length, first_ms: Math.round(ms[0] ?? NaN), median_ms: Math.round(median * 10) / 10 })}\n`,
);
