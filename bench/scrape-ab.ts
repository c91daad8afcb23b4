/**
 * One build of vigil under two sets of Node flags, side by side on one estate: the CPU a scrape of
 * /metrics costs under load (wrk, `--connections`, gzip and identity). Both sides are up at once
 * with the same collected body; they take turns under the scraper, round after round, so the
 * machine's load falls on both alike. For flags that touch the main thread (which answers scrapes),
 * e.g. its young generation:
 *
 *   npm run build && node --import tsx bench/scrape-ab.ts --a-flags='--max-semi-space-size=0' [--scale=3] [--rounds=3]
 *
 * Both sides run as the image runs vigil (`VIGIL_NODE_FLAGS`), each side's flags after those (the
 * last of a flag wins). Everything listens on 127.0.0.1 and is ended by PID, also on failure.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Children } from './scale/children.js';
import { vigilConfig } from './scale/estate.js';
import { printTable, type Row } from './scale/report.js';
import { startEstate } from './scale/start-estate.js';
import { startVigil, until, type Vigil } from './scale/start-vigil.js';
import { load } from './scale/wrk.js';

const { values: flags } = parseArgs({
  options: {
    'a-flags': { type: 'string', default: '' },
    'b-flags': { type: 'string', default: '' },
    scale: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '4' },
  },
  strict: true,
});
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'vigil-scrape-ab-'));
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? NaN;
const SIDES = ['a', 'b'] as const;
const ENCODINGS = ['gzip', 'identity'] as const;

try {
  const { estate } = await startEstate(children, Number(flags.scale), scratch);
  const vigils = {} as Record<(typeof SIDES)[number], Vigil>;
  for (const side of SIDES) {
    process.env.BENCH_VIGIL_NODE_FLAGS = flags[`${side}-flags`];
    mkdirSync(join(scratch, side));
    vigils[side] = await startVigil(children, join(scratch, side), (listen) => vigilConfig(estate, listen));
    await until(`vigil ${side} to be ready`, async () => (await fetch(`${vigils[side].url}/readyz`)).ok);
    await vigils[side].collect();
  }
  const cpu: Record<string, number[]> = {};
  for (let r = 0; r < Number(flags.rounds); r++) {
    for (const side of r % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
      for (const encoding of ENCODINGS) {
        const v = vigils[side];
        const res = await load(children, {
          url: `${v.url}/metrics`,
          connections: Number(flags.connections),
          seconds: Number(flags.seconds),
          gzip: encoding === 'gzip',
          serverPid: v.child.pid,
        });
        (cpu[`${side} ${encoding}`] ??= []).push(res.cpu_ms_per_request);
        process.stdout.write(`  round ${r + 1} ${side} ${encoding}: ${res.requests_per_second} req/s, ${res.cpu_ms_per_request} CPU ms/req\n`);
      }
    }
  }
  const rows: Row[] = ENCODINGS.map((encoding) => {
    const a = median(cpu[`a ${encoding}`] ?? []);
    const b = median(cpu[`b ${encoding}`] ?? []);
    return { encoding, 'a CPU ms/req': a, 'b CPU ms/req': b, 'b / a': Math.round((b / a) * 1000) / 1000 };
  });
  printTable(
    `scrape CPU, medians of ${flags.rounds} rounds; a: ${flags['a-flags'] || '(as shipped)'}, b: ${flags['b-flags'] || '(as shipped)'} (load ${readFileSync('/proc/loadavg', 'utf8').trim()})`,
    rows,
  );
} finally {
  await children.stopAll();
  rmSync(scratch, { recursive: true, force: true });
}
