import { family, single, type Family } from '../../metrics/family.js';

export const sealedFamily: Family<boolean | undefined> = family<boolean | undefined>({
  name: 'secrets_sealed',
  help: '1 when the last scheduled status poll was answered 503 "sealed", 0 when it was answered with data, absent when the answer said neither (timeout, refused, other error).',
  type: 'gauge',
  section: 'secrets',
  labels: ['target'],
  samples: single((sealed) => sealed),
});
