import { MAX_SECRET_FILE_BYTES, fileProblem, readBoundedFile } from '../config-fields/bounded-file.js';
import { UpstreamError } from '../upstream/errors.js';

/**
 * Reads a token from a file at use time, so a rotated token is picked up without a reload; only a
 * regular file, bounded in size and time (a FIFO or /dev/zero fails the run instead of hanging it).
 * The error names the file and the problem, never its content.
 */
export async function readSecretFile(path: string, what: string): Promise<string> {
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
