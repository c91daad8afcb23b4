import { MAX_SECRET_FILE_BYTES, fileProblem, readBoundedFile } from '../config-fields/bounded-file.js';
import { UpstreamError } from '../upstream/errors.js';

/** Reads in flight, by path and what the file is: those asked for meanwhile wait for the same read. */
const reading = new Map<string, Promise<string>>();

/**
 * Reads a token from a file at use time, so a rotated token is picked up without a reload; only a
 * regular file, bounded in size and time (a FIFO or /dev/zero fails the run instead of hanging it).
 * The error names the file and the problem, never its content.
 *
 * The jobs of one target start together and each reads the target's token: a read asked for while
 * another of the same file is in flight takes that one's result rather than opening the file again
 * (a cluster's eight jobs read it once or twice, not eight times). Nothing is kept once a read is
 * done, so the next read sees the file as it is then.
 */
export function readSecretFile(path: string, what: string): Promise<string> {
  const key = `${what}\u0000${path}`;
  let read = reading.get(key);
  if (!read) {
    read = readNow(path, what).finally(() => reading.delete(key));
    reading.set(key, read);
  }
  return read;
}

async function readNow(path: string, what: string): Promise<string> {
  try {
    const token = (await readBoundedFile(path, MAX_SECRET_FILE_BYTES)).toString('utf8').trim();
    if (!token) throw new UpstreamError('config', `${what} ${path} is empty`);
    return token;
  } catch (e) {
    if (e instanceof UpstreamError) throw e;
    throw new UpstreamError('config', `cannot read ${what} ${path} (${fileProblem(e)})`);
  }
}

export async function optionalSecretFile(path: string | undefined, what: string): Promise<string | undefined> {
  return path === undefined ? undefined : readSecretFile(path, what);
}
