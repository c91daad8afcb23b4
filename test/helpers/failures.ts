import { expect } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { parseConfig } from '../../src/config/load.js';
import { UpstreamError } from '../../src/upstream/errors.js';

/** The UpstreamError a call rejects with; fails the test when it succeeds or throws anything else. */
export async function upstreamFailure(p: Promise<unknown>): Promise<UpstreamError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(UpstreamError);
    return e as UpstreamError;
  }
  throw new Error('the call succeeded');
}

/** The problems a config is refused with; fails the test when it is accepted. */
export function configProblems(yaml: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseConfig(yaml, 'vigil.yml', env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  throw new Error('config was accepted');
}
