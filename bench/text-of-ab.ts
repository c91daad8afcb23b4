/**
 * A body's bytes to text, as vigil decoded them before (`toString('utf8')`) and as `textOf` does
 * now (ASCII as Latin-1, anything else as UTF-8), on the large answers, a small one and a large
 * one with a single non-ASCII character. Each way is followed by the `JSON.parse` it feeds, and the
 * two take turns, several rounds, in one process: CPU per answer (user + system, which holds the
 * page faults of a fresh string's memory), the minor page faults per answer (Linux), and the ratio.
 *
 *   node --import tsx bench/text-of-ab.ts [--rounds=5]
 */
import { parseArgs } from 'node:util';
import { textOf } from '../src/upstream/parse.js';
import { membersBody, teamsPage } from './decode/large-answers.js';
import { minorFaults } from './scale/proc-stat.js';

const { values: flags } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const rounds = Number(flags.rounds);

const THREAD = '/proc/thread-self/stat';

const nonAscii = Buffer.from(membersBody.toString('latin1').replace('node-1"', 'nœud-1"'));
const small = membersBody.subarray(0, membersBody.indexOf('},{') + 1);
const smallBody = Buffer.from(`${small.toString('latin1')}]}`);
const bodies: Array<[string, Buffer, number]> = [
  ['gossip member, one (small)', smallBody, 20_000],
  ['teams page, 100 teams', teamsPage, 400],
  ['gossip pool, 5,000 members', membersBody, 40],
  ['gossip pool, one name non-ASCII', nonAscii, 40],
];
const ways: Array<[string, (b: Buffer) => string]> = [
  ["toString('utf8') (before)", (b) => b.toString('utf8')],
  ['textOf (now)', textOf],
];

type Tally = { cpuUs: number; faults: number; n: number };
const tallies = new Map<string, Tally>();
for (let round = 0; round < rounds; round++) {
  for (const [body, bytes, n] of bodies) {
    for (const [way, decodeText] of ways) {
      const faults = minorFaults(THREAD);
      const cpu = process.cpuUsage();
      for (let i = 0; i < n; i++) JSON.parse(decodeText(bytes));
      const used = process.cpuUsage(cpu);
      if (round === 0) continue; // the first round warms up
      const t = tallies.get(`${body}\u0000${way}`) ?? { cpuUs: 0, faults: 0, n: 0 };
      tallies.set(`${body}\u0000${way}`, { cpuUs: t.cpuUs + used.user + used.system, faults: t.faults + minorFaults(THREAD) - faults, n: t.n + n });
    }
  }
}

process.stdout.write(`node ${process.version}, ${rounds - 1} measured rounds (one warm-up), text then JSON.parse\n`);
for (const [body, bytes] of bodies) {
  const [before, now] = ways.map(([way]) => tallies.get(`${body}\u0000${way}`) as Tally);
  const per = (t: Tally) => `${(t.cpuUs / t.n).toFixed(1)} µs, ${(t.faults / t.n).toFixed(1)} faults`;
  const ratio = (now as Tally).cpuUs / (now as Tally).n / ((before as Tally).cpuUs / (before as Tally).n);
  process.stdout.write(`${body} (${bytes.length} bytes): before ${per(before as Tally)}; now ${per(now as Tally)}; now/before CPU ${ratio.toFixed(3)}\n`);
}
