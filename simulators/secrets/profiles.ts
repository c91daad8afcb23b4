/** Ways real servers of different versions shape the same status; toggled by the admin API. */
export interface Quirks {
  /** Older primaries send no `state`. */
  omitState: boolean;
  /** Some versions send WAL indexes as JSON strings. */
  numbersAsStrings: boolean;
  /** Fields the spec does not list but real servers send. */
  extraFields: boolean;
  /** Before 1.5: no `secondaries` list on a primary, no `primaries` list on a secondary. */
  omitPeerLists: boolean;
}

/**
 * `current`: 1.16+, with the fields beyond the spec (clock skew, canary age, connection_state...).
 * `1.5`: 1.5 to 1.15, peer lists without those fields, and the HA status in the `data` envelope
 * without clock skew or echo duration. `pre-1.5`: primaries send known_secondaries but no
 * `secondaries` list, secondaries no `primaries` list, and primaries no `state`; no sys/ha-status
 * and no autopilot state (404), and no licence in the health answer. Both older ones send the seal
 * status of a 1.7 server (no build date) and have no seal backend status (404, before 1.15).
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
