import type { Quirks } from './cluster.js';

/**
 * `current`: 1.16+, with the fields beyond the spec (clock skew, canary age, connection_state...).
 * `1.5`: 1.5 to 1.15, peer lists without those fields. `pre-1.5`: primaries send known_secondaries
 * but no `secondaries` list, secondaries no `primaries` list, and primaries no `state`.
 */
export const SECRETS_PROFILES = ['current', '1.5', 'pre-1.5'] as const;
export type SecretsProfile = (typeof SECRETS_PROFILES)[number];

export function quirksOf(profile: SecretsProfile): Quirks {
  return {
    omitState: profile === 'pre-1.5',
    numbersAsStrings: false,
    extraFields: profile === 'current',
    omitPeerLists: profile === 'pre-1.5',
  };
}
