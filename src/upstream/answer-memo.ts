import { sameValue } from '../support/same-value.js';
import { giveBackOwned, moveIntoShared } from '../support/transfer.js';

interface Last {
  readonly digest: Buffer;
  readonly value: unknown;
  /** The body's length in bytes. */
  length: number | undefined;
  /** The secrets the body was last found free of (`secretsKey`), when it was searched and was. */
  cleanOf: string | undefined;
}

/**
 * The last successful decoding of each of one target's answers, by endpoint (and page), known again
 * by a digest of the body. An answer byte-identical to the last is neither decoded, validated nor
 * mapped again: the value decoded from it is handed out once more. A changed byte changes the digest
 * and takes the whole path (a value decoded the same as the last is the last, one object); a failed
 * decoding forgets the answer, so an invalid body fails every time with its reason and is never
 * taken for a success.
 *
 * Bounded by what the target asks for (one entry per endpoint and page), and as long-lived as the
 * target's jobs: a reload builds new jobs and a new memo.
 */
export class AnswerMemo {
  private readonly last = new Map<string, Last>();

  /** `reused` is told the endpoint of each answer found unchanged (for vigil_upstream_unchanged_answers_total). */
  constructor(private readonly reused: (endpoint: string) => void = () => undefined) {}

  /**
   * `decode`'s value for a body of `digest` (its SHA-256), or the value decoded last under `endpoint`
   * and `key` when the body is the same bytes. The digest is the caller's, taken as the body arrived
   * (`Received`): a body known again is never joined, copied or decoded. `length` is the body's
   * (see `lastLength`).
   */
  async decode<T>(endpoint: string, key: string, digest: Buffer, decode: () => Promise<T>, cleanOf?: string, length?: number): Promise<T> {
    const at = `${endpoint}\u0000${key}`;
    const last = this.last.get(at);
    if (last?.digest.equals(digest)) {
      this.reused(endpoint);
      // searched again (the secrets changed): known clean of the new ones from now on
      last.cleanOf = cleanOf;
      last.length = length ?? last.length;
      return last.value as T;
    }
    this.last.delete(at);
    const decoded = await decode();
    // New bytes that say what the last said (only what vigil does not read changed): the last value
    // stays, one object. Whatever holds the last (the job's last commit, the body) holds this one, and
    // the new one, a pool's lines (megabytes), is not kept beside it.
    const value = last && sameValue(last.value, decoded) ? (last.value as T) : decoded;
    // The one kept shares its large buffers with the main thread's body; the other's are freed now.
    if (value === decoded) moveIntoShared(decoded);
    else giveBackOwned(decoded);
    this.last.set(at, { digest, value, cleanOf, length });
    return value;
  }

  /**
   * Whether the answer held under `endpoint` and `key` is a body of `digest` found free of the
   * secrets `secrets` (`secretsKey`): the same bytes, searched for the same secrets, need no search
   * again. A body that held a secret is held redacted, under another digest, and never matches.
   */
  knowsClean(endpoint: string, key: string, digest: Buffer, secrets: string): boolean {
    const last = this.last.get(`${endpoint}\u0000${key}`);
    return last !== undefined && last.cleanOf === secrets && last.digest.equals(digest);
  }

  /** The length of the body last decoded or known again under `endpoint` and `key`, if one was and said it. */
  lastLength(endpoint: string, key: string): number | undefined {
    return this.last.get(`${endpoint}\u0000${key}`)?.length;
  }

  /** Answers held (one per endpoint and page seen since the target's jobs were built). */
  get size(): number {
    return this.last.size;
  }
}
