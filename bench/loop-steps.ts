/**
 * Which steps hold vigil's event loop longest during a collection: runs vigil (built, `dist/`) on the
 * benchmark's estate under `--cpu-prof`, drives a few collections with POST /-/collect, and prints
 * the longest stretches of the main thread's profile without an idle sample, each with the
 * functions that took most of it. The stall `POST /-/collect` reports is the longest of these plus
 * any wait for a core.
 *
 *   npm run build && node --import tsx bench/loop-steps.ts --scale=3 --collections=3 [--save=file.cpuprofile]
 *   ... --node-flags=--trace-gc --echo='ms: '    # and vigil's GC pauses
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { CollectSummary } from '../src/daemon.js';
import { Children, freePort } from './scale/children.js';
import { vigilConfig } from './scale/estate.js';
import { stallContents, type CpuProfile } from './scale/profile-stretches.js';
import { shapeAt, startEstate } from './scale/start-estate.js';
import { VIGIL_ENV, VIGIL_NODE_FLAGS } from './scale/start-vigil.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: flags } = parseArgs({
  options: {
    scale: { type: 'string', default: '3' },
    collections: { type: 'string', default: '3' },
    top: { type: 'string', default: '8' },
    save: { type: 'string' },
    // the simulators' nice: with 19 they wait for a core behind vigil, as upstreams on other machines do not compete
    'simulators-nice': { type: 'string', default: '0' },
    // extra flags for vigil's node (e.g. --trace-gc), and a text whose lines of vigil's output to print
    'node-flags': { type: 'string', default: '' },
    echo: { type: 'string' },
  },
  strict: true,
});
const children = new Children();
const scratch = mkdtempSync(join(tmpdir(), 'vigil-loop-steps-'));
const say = (line: string) => process.stdout.write(`${line}\n`);

async function until(ok: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok().catch(() => false))) {
    if (Date.now() > deadline) throw new Error('timed out waiting for vigil');
    await new Promise((r) => setTimeout(r, 100));
  }
}

try {
  const { estate } = await startEstate(children, Number(flags.scale), scratch, shapeAt(Number(flags.scale)), {
    nice: Number(flags['simulators-nice']),
  });
  const listen = `127.0.0.1:${await freePort()}`;
  const config = join(scratch, 'vigil.yml');
  writeFileSync(config, vigilConfig(estate, listen));
  const profDir = join(scratch, 'prof');
  const stallFile = join(scratch, 'stalls.json');
  const probe = pathToFileURL(join(ROOT, 'bench/scale/stall-probe.mjs')).href;
  const extra = (flags['node-flags'] ?? '').split(' ').filter(Boolean);
  const args = [
    ...VIGIL_NODE_FLAGS,
    ...extra,
    '--import',
    probe,
    '--cpu-prof',
    `--cpu-prof-dir=${profDir}`,
    '--cpu-prof-interval=250',
    'dist/main.js',
    `--config.file=${config}`,
    '--log.level=warn',
    '--web.enable-lifecycle',
    '--web.collect-min-interval=0s',
  ];
  const vigil = children.start('vigil', process.execPath, args, { cwd: ROOT, env: { ...process.env, ...VIGIL_ENV, STALL_PROBE_FILE: stallFile } });
  const url = `http://${listen}`;
  await until(async () => (await fetch(`${url}/readyz`)).ok);
  // Only the stalls of the collections below: not those of starting up.
  const from = Number(process.hrtime.bigint() / 1000n);
  for (let i = 0; i < Number(flags.collections); i++) {
    const s = (await (await fetch(`${url}/-/collect`, { method: 'POST' })).json()) as CollectSummary;
    say(
      `collection ${i + 1}: ${s.series} series, wall ${s.wall_seconds.toFixed(2)} s, loop delay max ${(s.event_loop_delay_max_seconds * 1000).toFixed(1)} ms`,
    );
  }
  await children.stop(vigil, 30_000);
  const echo = flags.echo;
  if (echo) for (const l of vigil.output().split('\n')) if (l.includes(echo)) say(l);
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('vigil wrote no profile');
  if (flags.save) {
    copyFileSync(join(profDir, file), flags.save);
    copyFileSync(stallFile, `${flags.save}.stalls.json`);
    for (const f of readdirSync(profDir).filter((x) => x.endsWith('.heapprofile'))) copyFileSync(join(profDir, f), `${flags.save}.heapprofile`);
  }
  const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as CpuProfile;
  const stalls = (JSON.parse(readFileSync(stallFile, 'utf8')) as Array<[number, number]>).filter(([start]) => start >= from);
  say(`\n${stalls.length} stalls over 15 ms; the longest, with what ran in them (load average ${readFileSync('/proc/loadavg', 'utf8').trim()}):`);
  for (const s of stallContents(profile, stalls, Number(flags.top))) {
    say(`${s.ms.toFixed(1).padStart(7)} ms  ${s.top.map((t) => `${t.name} ${t.ms.toFixed(1)}`).join(' | ')}`);
  }
} finally {
  await children.stopAll();
  rmSync(scratch, { recursive: true, force: true });
}
