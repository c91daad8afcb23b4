import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Network tests bind loopback ports and start child processes: keep files apart, bounded in time.
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
