import { describe, expect, it } from 'vitest';
import { unwritableDirMessage } from '../../src/sink/store/data-dir.js';

describe('an unwritable store directory', () => {
  it('names the directory, both owners and the chown that fixes it', () => {
    const m = unwritableDirMessage('/var/lib/vigil', { uid: 0, gid: 0 }, { uid: 1000, gid: 1000 });
    expect(m).toContain('/var/lib/vigil is not writable by vigil (uid 1000, gid 1000; the directory belongs to uid 0, gid 0)');
    expect(m).toContain('chown -R 1000:1000');
  });
});
