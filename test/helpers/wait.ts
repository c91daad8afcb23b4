/**
 * Polls `get` until it gives a value (not undefined), for states another process reaches on its own
 * time (a timer, Alertmanager's group interval). Bounded: fails naming what it waited for.
 */
export async function until<T>(what: string, get: () => Promise<T | undefined>, ms = 20_000, describeFailure: () => string = () => ''): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await get().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}${describeFailure()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
