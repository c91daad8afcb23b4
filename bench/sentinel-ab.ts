/**
 * Whether the stall sentinel (scale/stall-sentinel.ts) is itself a load: one vigil on one estate
 * collects four times alone, then four times with the sentinel beside it, turn about (alone first
 * in even rounds), and prints vigil's longest event-loop delay in each collection, the sentinel's
 * beside it, and the two sides' medians. The sentinel is the floor of vigil's stall only if the
 * medians match.
 *
 *   npm run build && node --import tsx bench/sentinel-ab.ts [scale, default 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Children } from './scale/children.js';
import { vigilConfig } from './scale/estate.js';
import { shapeAt, startEstate } from './scale/start-estate.js';
import { startSentinel } from './scale/stall-sentinel.js';
import { startVigil, until } from './scale/start-vigil.js';

const scale = Number(process.argv[2] ?? '3');
const ROUNDS = 4;
const COLLECTIONS = 4;
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'sab-'));
const ms = (s: number) => Math.round(s * 1e4) / 10;
try {
  const { estate } = await startEstate(children, scale, scratch, shapeAt(scale));
  const vigil = await startVigil(children, scratch, (l) => vigilConfig(estate, l));
  await until('ready', async () => (await fetch(`${vigil.url}/readyz`)).ok);
  // two collections to warm up, uncounted
  for (let i = 0; i < 2; i++) await vigil.collect();
  const all: Record<'with' | 'without', number[]> = { without: [], with: [] };
  for (let round = 0; round < ROUNDS; round++)
    for (const side of round % 2 ? (['with', 'without'] as const) : (['without', 'with'] as const)) {
      const s: number[] = [];
      const m: number[] = [];
      if (side === 'without') for (let i = 0; i < COLLECTIONS; i++) s.push(ms((await vigil.collect()).event_loop_delay_max_seconds));
      else {
        const sentinel = await startSentinel(children);
        for (let i = 0; i < COLLECTIONS; i++) {
          const { result, machineMs } = await sentinel.during(() => vigil.collect());
          s.push(ms(result.event_loop_delay_max_seconds));
          m.push(machineMs);
        }
        await children.stop(sentinel.child);
      }
      all[side].push(...s);
      console.log(`round ${round} ${side}: ${s.join(' ')}${m.length ? ` (sentinel ${m.join(' ')})` : ''}`);
    }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`median without ${med(all.without)}, with ${med(all.with)}`);
} finally {
  await children.stopAll();
  rmSync(scratch, { recursive: true, force: true });
}
