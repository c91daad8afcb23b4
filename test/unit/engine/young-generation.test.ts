import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { CollectionThread } from '../../../src/engine/thread.js';
import { collectionYoungGenerationMb, heapGrowingPercent, targetCount } from '../../../src/engine/young-generation.js';
import { HEAP_GROWING_PERCENT } from '../../../src/support/heap-growth.js';
import { runProbe } from '../../helpers/process.js';
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

    it("sets the heap's growth from the first config's targets, and keeps it through a reload", async () => {
      thread = new CollectionThread(pino({ level: 'silent' }), { level: 'error', format: 'logfmt' });
      expect(thread.heapGrowingPercent).toBe(HEAP_GROWING_PERCENT);
      await thread.applyJobs(agents(50));
      expect(thread.heapGrowingPercent).toBe(50);
      await thread.applyJobs(agents(300));
      expect(thread.heapGrowingPercent).toBe(50);
      await thread.stop();
      thread = new CollectionThread(pino({ level: 'silent' }), { level: 'error', format: 'logfmt' });
      await thread.applyJobs(agents(65));
      expect(thread.heapGrowingPercent).toBe(100);
    });
  });

  describe("every thread's heap growth", () => {
    it('is half as much for an estate of 64 targets at most', () => {
      expect([0, 50, 64, 65, 150, 416, 10_000].map(heapGrowingPercent)).toEqual([50, 50, 50, 100, 100, 100, 100]);
    });

    it('takes effect when set after the heap exists: V8 runs more full collections for the same objects kept', async () => {
      const fullCollections = async (percent: number) => {
        const { stdout } = await runProbe('test/fixtures/heap-growth-probe.ts', [], [String(percent)]);
        return (JSON.parse(stdout) as { full: number }).full;
      };
      const [half, whole] = [await fullCollections(50), await fullCollections(100)];
      expect(whole).toBeGreaterThan(0);
      expect(half).toBeGreaterThan(whole);
    }, 90_000);
  });
});
