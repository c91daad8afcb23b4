import { readFileSync } from 'node:fs';

/**
 * What the README's screenshot of the status page shows, as the page names it: each section's id
 * and each table's caption, in page order. docs/images/status-page.json keeps them with the date and
 * revision the screenshot was taken at (scripts/ui-screenshot.ts), so a test can tell when the page
 * and its picture have drifted apart.
 */
export const SCREENSHOT = new URL('../docs/images/status-page.png', import.meta.url);
export const SCREENSHOT_RECORD = new URL('../docs/images/status-page.json', import.meta.url);

/** The code that draws the estate page: a change to it leaves the screenshot older than the page. */
export const PAGE_CODE = ['src/server/ui', 'src/server/estate*.ts', 'ui'];

/** Tables shown only in some states (a target down): not part of the page's shape. */
export const STATE_DEPENDENT = new Set(['Targets down']);

export interface ScreenshotRecord {
  /** When the screenshot was taken (ISO 8601) and at which commit of this repository. */
  date: string;
  revision: string;
  /** The demo's faults injected for it, as the demo names them. */
  faults: string[];
  sections: string[];
}

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The estate page's sections (`h2` ids) and table captions, in order, without the state-dependent ones. */
export function pageSections(html: string): string[] {
  const found = [...html.matchAll(/<h2 id="([^"]+)"|<caption[^>]*>([^<]*)<\/caption>/g)].map((m) => (m[1] !== undefined ? `#${m[1]}` : unescape(m[2] ?? '')));
  return found.filter((s) => !STATE_DEPENDENT.has(s));
}

export function screenshotRecord(): ScreenshotRecord {
  return JSON.parse(readFileSync(SCREENSHOT_RECORD, 'utf8')) as ScreenshotRecord;
}
