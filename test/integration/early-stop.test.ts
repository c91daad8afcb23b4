import { spawn, spawnSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url);

describe('SIGTERM while vigil is still starting', () => {
  it('stops it with exit 0 (not by the signal, not ignored)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-early-stop-'));
    // A FIFO as the config: vigil blocks reading it, mid-start, until this test opens it for writing.
    const fifo = join(dir, 'vigil.yml');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', `--config.file=${fifo}`, '--web.listen-address=127.0.0.1:0'], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    try {
      const exited = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
      const writer = await open(fifo, 'w'); // resolves once vigil has opened the config for reading
      child.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
      await writer.close();
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
