import { constants, closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Reading files named in the config (the config itself, tokens, passwords, CA bundles) so that no
 * file can hang or flood vigil: only regular files (a FIFO would block until a writer comes,
 * /dev/zero never ends), at most `maxBytes`, within `timeoutMs`. Opened non-blocking, so even
 * opening a FIFO returns at once.
 */

/** The largest secret file (a token, a password) read. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;
/** The largest config file or CA bundle read. */
export const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;
/** How long reading one file may take (a stalled network filesystem). */
export const FILE_READ_TIMEOUT_MS = 5000;

/** Why a file was not read; the message names the problem, never the content. */
export class FileReadError extends Error {
  constructor(readonly code: string) {
    super(code);
    this.name = 'FileReadError';
  }
}

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** A file longer than its stat said (or a size-0 special file): twice the room, never more than the cap + 1. */
function grown(buf: Buffer, maxBytes: number): Buffer {
  const next = Buffer.alloc(Math.min(Math.max(buf.length * 2, 4096), maxBytes + 1));
  buf.copy(next);
  return next;
}

function checkStat(st: { isFile(): boolean; size: number }, maxBytes: number): void {
  if (!st.isFile()) throw new FileReadError('not a regular file');
  if (st.size > maxBytes) throw new FileReadError(`larger than ${maxBytes} bytes`);
}

/** The content of a regular file of at most `maxBytes`, read within `timeoutMs`. */
export async function readBoundedFile(path: string, maxBytes: number, timeoutMs = FILE_READ_TIMEOUT_MS): Promise<Buffer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FileReadError(`not read within ${timeoutMs} ms`)), timeoutMs);
  });
  const read = (async () => {
    const fh = await open(path, FLAGS);
    try {
      const st = await fh.stat();
      checkStat(st, maxBytes);
      // One byte more than the file had tells a file that grew since stat (read on, up to the cap).
      let buf: Buffer = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
      let n = 0;
      for (;;) {
        if (n === buf.length) buf = grown(buf, maxBytes);
        const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
        if (bytesRead === 0) break;
        n += bytesRead;
        if (n > maxBytes) throw new FileReadError(`larger than ${maxBytes} bytes`);
      }
      return buf.subarray(0, n);
    } finally {
      await fh.close();
    }
  })();
  read.catch(() => undefined);
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** readBoundedFile for the synchronous config paths (a CA bundle read while building clients); local files only. */
export function readBoundedFileSync(path: string, maxBytes: number): Buffer {
  const fd = openSync(path, FLAGS);
  try {
    const st = fstatSync(fd);
    checkStat(st, maxBytes);
    let buf: Buffer = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) buf = grown(buf, maxBytes);
      const bytesRead = readSync(fd, buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n > maxBytes) throw new FileReadError(`larger than ${maxBytes} bytes`);
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** What went wrong, for a message: an errno code (ENOENT) or the bound a file broke. */
export function fileProblem(e: unknown): string {
  if (e instanceof FileReadError) return e.code;
  return (e as NodeJS.ErrnoException).code ?? 'error';
}
