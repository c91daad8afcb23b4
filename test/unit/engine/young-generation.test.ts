import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { CollectionThread } from '../../../src/engine/thread.js';
import { collectionYoungGenerationMb, targetCount } from '../../../src/engine/young-generation.js';
import { NEVER } from '../../helpers/schedules.js';
import { waitFor } from '../../helpers/wait.js';

/** A config of `n` agents on a closed port, never collected on their own. */
const agents = (n: number) =>
  parseConfig(
    `agents:\n${Array.from({ length: n }, (_, i) => `  - name: agent-${i}\n    address: http://127.0.0.1:9\n    schedule: "${NEVER}"\n`).join('')}`,
    'test.yml',
  );

describe("the collection thread's young generation", () => {
  it('grows with the targets, 8 MiB per 64, a power of two from 16 to 32', () => {
    expect([0, 3, 50, 128, 130, 256, 416, 512, 513, 10_000].map(collectionYoungGenerationMb)).toEqual([16, 16, 16, 16, 32, 32, 32, 32, 32, 32]);
  });

  it('counts the targets of every kind', () => {
    const config = parseConfig(
      `secrets:\n  - name: s\n    address: http://127.0.0.1:9\nagents:\n  - name: a\n    address: http://127.0.0.1:9\n  - name: b\n    address: http://127.0.0.1:9\n`,
      'test.yml',
    );
    expect(targetCount(config)).toBe(3);
  });

  describe('in a running thread', () => {
    let thread: CollectionThread | undefined;
    afterEach(async () => {
      await thread?.stop();
      thread = undefined;
    });

    it("is sized by the first config's targets, in a thread that then runs its jobs", async () => {
      thread = new CollectionThread(pino({ level: 'silent' }), { level: 'error', format: 'logfmt' });
      expect(thread.youngGenerationMb).toBe(16);
      await thread.applyJobs(agents(300));
      expect(thread.youngGenerationMb).toBe(32);
      const views = await waitFor('the new thread to report its targets', async () => (thread!.targets().length ? thread!.targets() : undefined), 10_000);
      expect(new Set(views.map((t) => t.target)).size).toBe(300);
      const collected = await thread.collectNow({ force: true });
      expect(collected.failed_jobs).toBe(collected.jobs);
    });

    it("keeps its size through a reload: a new thread would lose every job's counters", async () => {
      thread = new CollectionThread(pino({ level: 'silent' }), { level: 'error', format: 'logfmt' });
      await thread.applyJobs(agents(2));
      expect(thread.youngGenerationMb).toBe(16);
      await thread.applyJobs(agents(300));
      expect(thread.youngGenerationMb).toBe(16);
    });
  });
});
