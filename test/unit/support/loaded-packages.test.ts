import { describe, expect, it } from 'vitest';
import { runProbe } from '../../helpers/process.js';

/** The packages loaded after each step of test/fixtures/threads/loaded-packages-probe.ts, by step. */
async function loadedBySteps(): Promise<Map<string, string[]>> {
  const { stdout } = await runProbe('test/fixtures/threads/loaded-packages-probe.ts');
  const steps = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { step: string; packages: string[] });
  return new Map(steps.map((s) => [s.step, s.packages]));
}

describe('packages loaded where they are used', () => {
  it('leaves undici, pg and better-sqlite3 out of the main and decoding threads, and loads each on its first use', async () => {
    const steps = await loadedBySteps();
    // The probe reads the cache truly: express is there from the first step (it is CommonJS, as are the three).
    expect(steps.get('main thread')).toContain('express');
    for (const thread of ['main thread', 'decoding thread']) {
      expect(steps.get(thread)).not.toContain('undici');
      expect(steps.get(thread)).not.toContain('pg');
      expect(steps.get(thread)).not.toContain('better-sqlite3');
    }
    expect(steps.get('an upstream client')).toContain('undici');
    expect(steps.get('an upstream client')).not.toContain('pg');
    expect(steps.get('a PostgreSQL store')).toContain('pg');
  });
});
