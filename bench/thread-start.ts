/**
 * What a decoding thread costs to start: a pool of one thread, one small task run on it, the pool
 * closed, `--rounds` times; CPU (this process, every thread) and wall time per start. The built
 * threads (`dist/`), as vigil runs them: what a pool that ended idle threads between collections
 * would pay again at each collection that decodes anything.
 *
 *   npm run build && npx tsx bench/thread-start.ts [--rounds=10]
 */
import { parseArgs } from 'node:util';
import type { collectionOffloadPool as Pool } from '../src/collectors/decoding.js';

const { values: flags } = parseArgs({ options: { rounds: { type: 'string', default: '10' } } });
const built = new URL('../dist/collectors/decoding.js', import.meta.url).href;
const { collectionOffloadPool } = (await import(built)) as { collectionOffloadPool: typeof Pool };
const body = Buffer.from(JSON.stringify({ Members: [] }));
const rounds = Number(flags.rounds);

const cpu = process.cpuUsage();
const wall = performance.now();
for (let i = 0; i < rounds; i++) {
  const pool = collectionOffloadPool(1);
  await pool.run('agent-members', { body: new Uint8Array(body), max: 10, context: { target: 'bench', endpoint: 'members' } });
  await pool.close();
}
const used = process.cpuUsage(cpu);
const perStart = (us: number) => Math.round(us / rounds / 100) / 10;
process.stdout.write(
  `${JSON.stringify({ rounds, cpu_ms_per_start: perStart(used.user + used.system), wall_ms_per_start: perStart((performance.now() - wall) * 1000) })}\n`,
);
