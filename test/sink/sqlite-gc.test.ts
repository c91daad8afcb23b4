import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../helpers/sqlite-churn.ts', import.meta.url));

describe('the SQLite store under garbage collection', () => {
  // On Node.js 24 this aborted (SIGABRT, "Assertion failed: (env) != nullptr") within a few rounds
  // while the store let better-sqlite3 objects become garbage: see src/sink/store/sqlite-kept.ts.
  it('survives writes, reads, reopening and failed opens interleaved with collections', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: r.status, signal: r.signal, stderr: r.stderr.slice(-2000) }).toEqual({ status: 0, signal: null, stderr: '' });
  }, 70_000);
});
