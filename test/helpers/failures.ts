import { ConfigError } from '../../src/config-fields/errors.js';
import { parseConfig } from '../../src/config/load.js';
import { UpstreamError } from '../../src/upstream/errors.js';
import { rejection, thrown } from './throws.js';

/** The UpstreamError a call rejects with; fails the test when it succeeds or throws anything else. */
export const upstreamFailure = (p: Promise<unknown>): Promise<UpstreamError> => rejection(UpstreamError, p);

/** The problems a config is refused with; fails the test when it is accepted. */
export const configProblems = (yaml: string, env: NodeJS.ProcessEnv = {}): string[] => thrown(ConfigError, () => parseConfig(yaml, 'vigil.yml', env)).problems;
