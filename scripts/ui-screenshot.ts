import { launch } from '../test/e2e/ui/browser.js';

/**
 * A screenshot of a running vigil's status page, for the README:
 *   npm run demo   (in another shell; inject a fault or two from what it prints)
 *   node --import tsx scripts/ui-screenshot.ts http://127.0.0.1:9810/ docs/images/status-page.png
 * One viewport (not the full page) at scale 1, so the committed file stays small.
 */
const [url, out] = process.argv.slice(2);
if (!url || !out) {
  process.stderr.write('usage: ui-screenshot.ts URL OUTPUT.png\n');
  process.exit(2);
}
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 }, deviceScaleFactor: 1 });
  await page.goto(url);
  await page.locator('#status', { hasText: 'live · updated' }).waitFor({ timeout: 20_000 });
  await page.screenshot({ path: out });
} finally {
  await browser.close();
}
