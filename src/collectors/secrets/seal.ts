import type { PartOutcome } from '../../jobs/part.js';
import { family, single, type Family } from '../../metrics/family.js';

export const sealedFamily: Family<boolean | undefined> = family<boolean | undefined>({
  name: 'secrets_sealed',
  help: '1 when the last scheduled status poll was answered 503 "sealed", 0 when it was answered with data, absent when the answer said neither (timeout, refused, other error).',
  type: 'gauge',
  section: 'secrets',
  labels: ['target'],
  samples: single((sealed) => sealed),
});

/**
 * Whether a secrets target is sealed, from the outcomes of its status polls: sealed when any kind was
 * answered 503 "sealed", unsealed when any kind was answered with data, unknown (absent) otherwise
 * (a timeout or a refused connection says nothing about the seal).
 */
export function sealedFrom(outcomes: readonly PartOutcome[]): boolean | undefined {
  if (outcomes.some((o) => o.error?.reason === 'sealed')) return true;
  if (outcomes.some((o) => !o.error && !o.notApplicable)) return false;
  return undefined;
}
