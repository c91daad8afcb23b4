/** A class of error a test expects, e.g. ConfigError or UpstreamError. */
export type ErrorClass<E> = abstract new (...args: never[]) => E;

/**
 * The `kind` error `run` throws, for the test to look into. Anything else it throws is thrown on
 * (with its own stack), and throwing nothing fails the test.
 */
export function thrown<E>(kind: ErrorClass<E>, run: () => unknown): E {
  try {
    run();
  } catch (e) {
    if (e instanceof kind) return e;
    throw e;
  }
  throw new Error(`expected a ${kind.name}, but nothing was thrown`);
}

/** The `kind` error a promise rejects with; any other rejection is thrown on, and resolving fails the test. */
export async function rejection<E>(kind: ErrorClass<E>, p: Promise<unknown>): Promise<E> {
  try {
    await p;
  } catch (e) {
    if (e instanceof kind) return e;
    throw e;
  }
  throw new Error(`expected a ${kind.name}, but the promise resolved`);
}
