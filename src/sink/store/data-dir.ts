import { accessSync, constants, mkdirSync, statSync } from 'node:fs';

export interface DirOwner {
  uid: number;
  gid: number;
}

/** Why vigil cannot write its store's directory, and the fix (the usual case: a root-owned bind mount). */
export function unwritableDirMessage(dir: string, owner: DirOwner, self: DirOwner): string {
  return (
    `the alert store's directory ${dir} is not writable by vigil (uid ${self.uid}, gid ${self.gid}; ` +
    `the directory belongs to uid ${owner.uid}, gid ${owner.gid}). Fix: give it to vigil, e.g. ` +
    `\`chown -R ${self.uid}:${self.gid} DIR\` on the host directory mounted there (or use a named volume), ` +
    `or set alert_sink.store.path to a writable place`
  );
}

/** Makes the store's directory and checks that this process may write it, naming the fix if not. */
export function ensureWritableDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    const st = statSync(dir);
    const self = { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1 };
    throw new Error(unwritableDirMessage(dir, { uid: st.uid, gid: st.gid }, self));
  }
}
