import { spawn, spawnSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = new URL('../..', import.meta.url);

describe('SIGTERM while vigil is still starting', () => {
  it('is caught: vigil exits (not killed by the signal, not ignored)', async () => {
    const dir = tempDir('vigil-early-stop-');
    // A FIFO as the config: opening it for writing resolves once vigil, mid-start, has opened it
    // for reading. Config files are opened non-blocking and only regular files are read, so vigil
    // then refuses the FIFO (exit 1) unless the SIGTERM is handled first (exit 0): which comes
    // first is a race. Either way the signal was caught; without the early handler it kills vigil.
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
      const [code, signal] = await exited;
      expect(signal).toBeNull();
      expect([0, 1]).toContain(code);
      await writer.close();
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
