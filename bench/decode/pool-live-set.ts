/**
 * What one gossip pool's poll holds alive at each of its steps: the answer as text, parsed, mapped by
 * the schema, and its samples if they were listed before being rendered. Each figure is the heap in
 * use after a full collection, less the one before the step, with everything built so far still
 * held. A pool as the simulated agent answers it (`--members`, 20,000 by default: the million-series
 * estate's).
 *
 *   node --expose-gc --import tsx bench/decode/pool-live-set.ts [--members=20000]
 */
import { agentMembersResponse, memberPollFamilies } from '../../src/collectors/agent/members.js';
import { decode } from '../../src/upstream/decode.js';
import { textOf } from '../../src/upstream/parse.js';
import { MemberPool } from '../../simulators/agent/members.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const size = Number(process.argv.find((a) => a.startsWith('--members='))?.split('=')[1] ?? 20_000);
const host = { node: 'server-1', ip: '10.0.0.1', datacenter: 'dc1', version: '1.7.5' };
const pool = new MemberPool({ local: host, region: 'global', size, peers: [], reserved: new Set(), firstGeneratedHost: 10 });
const bytes = Buffer.from(pool.membersBody());

const held: unknown[] = [];
let before = 0;
const inUse = (): number => {
  gc();
  return process.memoryUsage().heapUsed;
};
const step = (name: string, build: () => unknown): unknown => {
  before = inUse();
  const value = build();
  held.push(value);
  console.log(`${name.padEnd(44)} ${((inUse() - before) / 2 ** 20).toFixed(1).padStart(6)} MiB`);
  return value;
};

console.log(`a pool of ${size} members, ${(bytes.length / 1e6).toFixed(1)} MB`);
const text = step('the answer as text', () => textOf(bytes)) as string;
const parsed = step('parsed (JSON.parse)', () => decode(text, 'members'));
const mapped = step('mapped by the schema', () => agentMembersResponse.parse(parsed));
const members = (mapped as { Members: never[] }).Members;
step('its samples, had they been listed', () => memberPollFamilies.map((f) => [...f.samples({ members, kept: members })]));
console.log(`held: ${held.length} values`);
