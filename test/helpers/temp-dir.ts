import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

const left = new Set<string>();
const remove = (dir: string) => {
  left.delete(dir);
  rmSync(dir, { recursive: true, force: true });
};
const removeLeft = () => [...left].forEach(remove);
// Imported while a test file is collected, this registers on that file: whatever no narrower hook
// removed (a directory made in a beforeAll, where vitest ignores a new afterAll, or one kept for the
// file) goes when the file's tests end, after the file's own afterAll hooks. The exit handler is
// for a run that shares this module between files.
afterAll(removeLeft);
process.once('exit', removeLeft);

/**
 * A fresh directory under the OS temp dir, removed with everything in it when its scope ends: the
 * test, when called in one or in a beforeEach; else the file (top level, describe body, beforeAll),
 * which `{ for: 'file' }` asks for from a test too (files a daemon may read again in a later test).
 */
export function tempDir(prefix = 'vigil-', opts: { for?: 'scope' | 'file' } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), prefix.endsWith('-') ? prefix : `${prefix}-`));
  left.add(dir);
  if (opts.for === 'file') return dir;
  try {
    onTestFinished(() => remove(dir));
  } catch {
    afterAll(() => remove(dir));
  }
  return dir;
}
