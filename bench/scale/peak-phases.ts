/**
 * The peak RSS of each phase of vigil's life over the estate at `--scale`, not only of the whole
 * run: starting (its first collection included) until ready, then each collection with no answer
 * changed, then each with every answer changed. The kernel's high-water mark (VmHWM) is reset
 * before each phase (`/proc/<pid>/clear_refs`, "5"), so a phase's peak is its own and not that of
 * an earlier one. Also the RSS at the phase's end and the CPU the phase took (all of vigil's
 * threads).
 *
 * The whole bench's "RSS peak" is the high-water mark of every phase at once; this tells which
 * phase sets it (docs/performance.md, "The peak of each phase").
 *
 * With `--churn`, every answer changed includes the gossip pools' lines: a member of each pool
 * fails in turn at each members answer (the simulators' `churn` fault), where `vary` alone changes
 * bytes that render the same lines.
 *
 *   npm run build && node --import tsx bench/scale/peak-phases.ts --scale=10 [--collections=2] [--churn]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Children, cpuSeconds, rssBytes } from './children.js';
import { setFaults, vigilConfig } from './estate.js';
import { PhasePeaks } from './phase-peaks.js';
import { printTable, type Row } from './report.js';
import { runBench } from './run-bench.js';
import { shapeAt, startEstate } from './start-estate.js';
import { startVigil, until } from './start-vigil.js';

const { values: flags } = parseArgs({
  options: { scale: { type: 'string', default: '1' }, collections: { type: 'string', default: '2' }, churn: { type: 'boolean', default: false } },
});
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'vigil-peaks-'));
const mib = (b: number) => Math.round(b / 2 ** 20);

await runBench('peak-phases', children, scratch, async () => {
  const scale = Number(flags.scale);
  const collections = Number(flags.collections);
  const { child: sim, estate } = await startEstate(children, scale, scratch, shapeAt(scale));
  const vigil = await startVigil(children, scratch, (listen) => vigilConfig(estate, listen));
  const pid = vigil.child.pid;
  const rows: Row[] = [];
  const peaks = new PhasePeaks(pid);
  const phase = async (name: string, run: () => Promise<unknown>, first = false) => {
    const cpuFrom = first ? 0 : cpuSeconds(pid);
    await run();
    rows.push({
      phase: name,
      'CPU s': Math.round((cpuSeconds(pid) - cpuFrom) * 100) / 100,
      'RSS after MiB': mib(rssBytes(pid)),
      // From here the high-water mark is the RSS now: the next phase's peak is its own.
      'RSS peak MiB': mib(peaks.mark(name)),
    });
  };
  await phase('start, first collection', () => until('vigil to be ready', async () => (await fetch(`${vigil.url}/readyz`)).ok), true);
  for (const changed of [false, true]) {
    if (changed) await setFaults(estate, { vary: true, churn: flags.churn });
    for (let i = 1; i <= collections; i++) await phase(`${changed ? 'every answer changed' : 'no answer changed'} ${i}`, () => vigil.collect());
  }
  await setFaults(estate, undefined);
  await children.stop(vigil.child);
  await children.stop(sim);
  printTable(`vigil's phases at scale ${scale}: each phase's own peak`, rows);
});
