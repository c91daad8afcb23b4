import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GOLDEN_FILES, startGoldenEstate, type GoldenFormat } from '../test/helpers/golden-estate.js';
import { normalizeExposition } from '../test/helpers/golden-exposition.js';

/**
 * Rewrites the golden exposition (`npm run golden`): the whole /metrics body of the fixed estate of
 * test/helpers/golden-estate.ts, normalized, in both formats. test/integration/golden-exposition.test.ts
 * compares a live body with it; commit the new files with the change that made them differ.
 */
const estate = await startGoldenEstate();
try {
  for (const [format, url] of Object.entries(GOLDEN_FILES) as Array<[GoldenFormat, URL]>) {
    const file = fileURLToPath(url);
    mkdirSync(new URL('.', url), { recursive: true });
    const text = normalizeExposition(await estate.scrape(format));
    writeFileSync(file, text);
    process.stdout.write(`${file}: ${text.split('\n').length - 1} lines\n`);
  }
} finally {
  await estate.close();
}
