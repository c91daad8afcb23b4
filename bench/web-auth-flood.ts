/**
 * Whether wrong passwords from many addresses lock the scraper out: vigil from dist/ with basic auth
 * (cost 10, as `htpasswd -nBC 10` makes), a guesser keeping `open` wrong passwords under way from
 * rotating loopback addresses, and 30 first checks, each of a user not yet verified (the scraper's
 * first scrape after a start) from an address of its own, sent one after another: how many pass at
 * the first try, and within three (waiting the Retry-After between). Two guessers: one whose
 * addresses have each failed once before the checks start (100 addresses, 16 open), and one that
 * starts with the checks from 2,000 addresses (10 open), most of them never seen failing.
 * BENCH_BEFORE=<another checkout, built> measures that one too, in the same run.
 *
 *   npm run build && node --import tsx bench/web-auth-flood.ts
 *   BENCH_BEFORE=/path/to/checkout/of/main node --import tsx bench/web-auth-flood.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { basicAuth, loopbackAddresses, passwordFlood, send } from '../test/helpers/password-flood.js';
import { startVigil } from '../test/helpers/process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PASSWORD = 'bench-password';
const HASH = bcrypt.hashSync(PASSWORD, 10);
const CHECKS = 30;
const GUESSERS = [
  { name: 'failing addresses', addresses: 100, open: 16, seeded: true },
  { name: 'mostly new addresses', addresses: 2000, open: 10, seeded: false },
];

async function measure(root: string, guesser: (typeof GUESSERS)[number]) {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-authflood-'));
  const users = ['prometheus', ...Array.from({ length: CHECKS }, (_, i) => `scraper-${i}`)].map((u) => `  ${u}: ${HASH}\n`).join('');
  writeFileSync(join(dir, 'web.yml'), `basic_auth_users:\n${users}`);
  writeFileSync(join(dir, 'vigil.yml'), '');
  const vigil = startVigil(
    [`--config.file=${join(dir, 'vigil.yml')}`, `--web.config.file=${join(dir, 'web.yml')}`, '--web.listen-address=127.0.0.1:0', '--log.format=json'],
    {
      built: { root },
    },
  );
  try {
    await vigil.ready('vigil listening');
    const addresses = loopbackAddresses(1, guesser.addresses);
    const flood = passwordFlood(vigil.url, { addresses, open: guesser.open, user: 'prometheus', pauseMs: 50 });
    const seededAfter = Date.now() + 120_000;
    while (guesser.seeded && flood.failed.size < addresses.length && Date.now() < seededAfter) await new Promise((r) => setTimeout(r, 200));
    let first = 0;
    let withinThree = 0;
    for (let i = 0; i < CHECKS; i++) {
      for (let t = 0; t < 3; t++) {
        const a = await send(vigil.url, { localAddress: `127.2.0.${i + 1}`, authorization: basicAuth(`scraper-${i}`, PASSWORD) });
        if (a.status === 200) {
          if (t === 0) first++;
          withinThree++;
          break;
        }
        await new Promise((r) => setTimeout(r, 1000 * (a.retryAfter ?? 1)));
      }
    }
    await flood.stop();
    return { guesser: guesser.name, firstTry: `${first}/${CHECKS}`, withinThreeTries: `${withinThree}/${CHECKS}`, guesses: Object.fromEntries(flood.statuses) };
  } finally {
    await vigil.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const versions: Array<[string, string]> = [['this checkout', ROOT]];
if (process.env.BENCH_BEFORE) versions.unshift(['before', process.env.BENCH_BEFORE]);
for (const guesser of GUESSERS) {
  for (const [version, root] of versions) console.log(JSON.stringify({ version, ...(await measure(root, guesser)) }));
}
