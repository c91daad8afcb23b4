import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from '../simulators/alerting/service.js';
import { launch } from '../test/e2e/ui/browser.js';
import { pageSections, SCREENSHOT, SCREENSHOT_RECORD, type ScreenshotRecord } from './status-page-sections.js';

/**
 * The README's screenshot of the status page, taken from the demo:
 *   npm run build && node --import tsx scripts/ui-screenshot.ts
 * starts `npm run demo`'s program on a free port, injects FAULTS with the commands it prints, waits
 * until the page shows them, the nodes of the cluster of three and a Watchdog received, and writes
 * docs/images/status-page.png (one 1,400 px viewport at scale 1, so the file stays small) and
 * docs/images/status-page.json (date, revision, faults, the page's sections) beside it. Stops the
 * demo however it ends.
 */
const FAULTS = ['disconnect the DR secondary', 'seal the standby', 'fail a gossip member'];
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface EstateAnswer {
  problems: number;
  alertPath: { watchdogLastSeen: string | null };
  secrets: Array<{ nodes: { nodes: unknown[] } | null }>;
  agents: Array<{ failedMembers: string[] }>;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
}

if (!existsSync(new URL('../dist/main.js', import.meta.url))) throw new Error('build vigil first: npm run build');
const demo = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../simulators/demo.ts', import.meta.url)), `--port=${await freePort()}`], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
let out = '';
demo.stdout.on('data', (c: Buffer) => (out += c.toString()));
demo.stderr.on('data', (c: Buffer) => (out += c.toString()));
try {
  await until('the demo to print its faults', async () => (out.includes('Ctrl-C stops the demo.') ? true : undefined), 180_000);
  const url = /status page\s+(http:\S+?)\/\s/.exec(out)?.[1];
  if (!url) throw new Error(`the demo printed no status page:\n${out}`);
  for (const fault of FAULTS) {
    const inject = new RegExp(`# ${fault}[^\\n]*\\n\\s+(curl [^\\n]+)`).exec(out)?.[1];
    if (!inject) throw new Error(`the demo offers no fault "${fault}"`);
    const run = spawnSync('bash', ['-c', inject], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${inject}: ${run.stderr}`);
  }
  await until(
    'the faults, the nodes and a Watchdog on the page',
    async () => {
      const e = (await (await fetch(`${url}/api/v1/estate`)).json()) as EstateAnswer;
      const ready =
        e.alertPath.watchdogLastSeen !== null &&
        e.problems >= FAULTS.length &&
        e.secrets.some((c) => (c.nodes?.nodes.length ?? 0) >= 3) &&
        e.agents.some((a) => a.failedMembers.length > 0);
      return ready ? true : undefined;
    },
    180_000,
  );
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
    await page.goto(`${url}/`);
    await page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: fileURLToPath(SCREENSHOT) });
    const record: ScreenshotRecord = {
      date: new Date().toISOString(),
      revision: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim(),
      faults: FAULTS,
      sections: pageSections(await page.content()),
    };
    writeFileSync(SCREENSHOT_RECORD, `${JSON.stringify(record, null, 2)}\n`);
    process.stdout.write(`${fileURLToPath(SCREENSHOT)} and its record written: ${record.sections.join(', ')}\n`);
  } finally {
    await browser.close();
  }
} finally {
  demo.kill('SIGTERM');
  await new Promise((r) => demo.once('exit', r));
}
