import { one, type Families } from './estate-families.js';

const DAY_S = 86_400;

/** Whole days until the expiry a target reports in `family` (negative once past); null when it reports none. */
export function tokenDaysLeft(f: Families, family: string, target: string, nowS: number): number | null {
  const expiry = one(f, family, { target });
  return expiry === undefined ? null : Math.floor((expiry - nowS) / DAY_S);
}
