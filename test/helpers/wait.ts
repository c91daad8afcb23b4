export interface WaitOptions {
  /** Time between two checks, in ms (default 100). */
  everyMs?: number;
  /** Appended to the timeout's message: what the test can tell about why the state never came. */
  describeFailure?: () => string | Promise<string>;
}

/**
 * Polls `check` until it gives a value (not undefined), for states another process reaches on its
 * own time (a timer, a child process starting, Alertmanager's group interval). A check that throws
 * counts as "not yet". Bounded: after `timeoutMs` it fails naming what it waited for.
 */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000, opts: WaitOptions = {}): Promise<T> {
  const { everyMs = 100, describeFailure } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${describeFailure ? await describeFailure() : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
