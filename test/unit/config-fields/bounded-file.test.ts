import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readBoundedFile, readBoundedFileSync } from '../../../src/config-fields/bounded-file.js';
import { ConfigError } from '../../../src/config-fields/errors.js';
import { loadConfig } from '../../../src/config/load.js';
import { SinkAuth } from '../../../src/sink/auth.js';
import { readSecretFile } from '../../../src/jobs/secret-file.js';
import { waitFor } from '../../helpers/wait.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** Files named in the config cannot hang vigil (a FIFO) or flood it (/dev/zero, a huge file). */

const dir = tempDir('vigil-files-');
let fifo: string;
beforeAll(() => {
  fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
});

describe('readBoundedFile', () => {
  it('reads a regular file', async () => {
    const p = join(dir, 'ok');
    writeFileSync(p, 'token\n');
    expect((await readBoundedFile(p, 100)).toString()).toBe('token\n');
    expect(readBoundedFileSync(p, 100).toString()).toBe('token\n');
  });

  it('reads all of a file whose stat says less than it holds (size 0 in /proc), and a long one', async () => {
    expect((await readBoundedFile('/proc/self/status', 64 * 1024)).toString()).toMatch(/^Name:[\s\S]*\nPid:[\s\S]*\n$/);
    expect(readBoundedFileSync('/proc/self/status', 64 * 1024).toString()).toMatch(/^Name:[\s\S]*\nPid:[\s\S]*\n$/);
    const long = 'x'.repeat(70_000);
    const p = join(dir, 'long');
    writeFileSync(p, long);
    expect((await readBoundedFile(p, 100_000)).toString()).toBe(long);
    expect(readBoundedFileSync(p, 100_000).toString()).toBe(long);
  });

  it.each([
    ['a FIFO', () => fifo],
    ['/dev/zero', () => '/dev/zero'],
    ['a directory', () => dir],
  ])('refuses %s at once, without blocking', async (_what, path) => {
    await expect(readBoundedFile(path(), 100)).rejects.toThrow('not a regular file');
    expect(() => readBoundedFileSync(path(), 100)).toThrow('not a regular file');
  });

  it('refuses a file larger than the cap', async () => {
    const p = join(dir, 'big');
    writeFileSync(p, 'x'.repeat(101));
    await expect(readBoundedFile(p, 100)).rejects.toThrow('larger than 100 bytes');
  });
});

describe('the files vigil reads', () => {
  it('a FIFO as the config file is a config error', async () => {
    const e = await loadConfig(fifo).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).problems).toEqual([`--config.file: cannot read file "${fifo}" (not a regular file)`]);
  });

  it('a FIFO or /dev/zero as a token file fails the read, naming the file', async () => {
    await expect(readSecretFile(fifo, 'token_file')).rejects.toThrow(`cannot read token_file ${fifo} (not a regular file)`);
    await expect(readSecretFile('/dev/zero', 'token_file')).rejects.toThrow('cannot read token_file /dev/zero (not a regular file)');
  });

  it('a token file read while another read of it is in flight is read once, and read again afterwards', async () => {
    const p = join(dir, 'shared-token');
    writeFileSync(p, 'first\n');
    const together = [readSecretFile(p, 'token_file'), readSecretFile(p, 'token_file'), readSecretFile(p, 'token_file')];
    expect(together[1]).toBe(together[0]);
    expect(together[2]).toBe(together[0]);
    expect(await Promise.all(together)).toEqual(['first', 'first', 'first']);
    writeFileSync(p, 'second\n');
    expect(await readSecretFile(p, 'token_file')).toBe('second');
    rmSync(p);
    await expect(readSecretFile(p, 'token_file')).rejects.toThrow(`cannot read token_file ${p}`);
    writeFileSync(p, 'third\n');
    expect(await readSecretFile(p, 'token_file')).toBe('third');
  });

  it('a FIFO as the sink token is a 500-kind failure, not a hang', async () => {
    const auth = new SinkAuth({ bearer_token_file: fifo });
    await expect(auth.check('Bearer x')).rejects.toThrow(`cannot read ${fifo} (not a regular file)`);
  });

  it('a sink token rotated in place with the same size and mtime applies within seconds', async () => {
    const p = join(dir, 'sink-token');
    writeFileSync(p, 'old-secret');
    const auth = new SinkAuth({ bearer_token_file: p });
    expect(await auth.check('Bearer old-secret')).toBe('ok');
    // touch -r copies the timestamps to the nanosecond: the rotation leaves no trace in stat().
    execFileSync('cp', ['-p', p, `${p}.ref`]);
    writeFileSync(p, 'new-secret');
    execFileSync('touch', ['-r', `${p}.ref`, p]);
    await waitFor('the new token to apply', async () => ((await auth.check('Bearer new-secret')) === 'ok' ? true : undefined), 10_000);
    expect(await auth.check('Bearer old-secret')).toBe('wrong');
  });
});
