import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/metrics/catalog.js';
import { renderMetricsDoc } from '../../src/metrics/docs.js';

describe('docs/metrics.md', () => {
  it('is what the catalog generates (run `npm run docs` after changing a metric)', () => {
    const committed = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderMetricsDoc(CATALOG));
  });

  it('lists every family of the catalog', () => {
    const committed = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
    for (const f of CATALOG) expect(committed).toContain(`| \`${f.name}\` |`);
  });
});
