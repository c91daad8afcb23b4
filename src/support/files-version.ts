import { stat } from 'node:fs/promises';

/** A cheap fingerprint of files' identities (inode, size, mtime): it changes when any is replaced or rewritten. */
export async function filesVersion(files: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    files.map((f) =>
      stat(f).then(
        (s) => `${s.ino}:${s.size}:${s.mtimeMs}`,
        () => 'missing',
      ),
    ),
  );
  return parts.join('|');
}
