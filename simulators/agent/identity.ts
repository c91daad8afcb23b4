import { createHash } from 'node:crypto';

export const RPC_PORT = 4647;
export const SERF_PORT = 4648;

/**
 * The private address of the n-th simulated host. Scenario agents take the first ones and generated
 * members the following ones, so every agent of a scenario agrees on who has which address.
 */
export function hostIp(n: number): string {
  const v = 11 + n;
  return `10.${(v >> 16) & 255}.${(v >> 8) & 255}.${v & 255}`;
}

/** A UUID that stays the same for the same seed, so restarts of the demo keep their node IDs. */
export function stableUuid(seed: string): string {
  const h = createHash('sha1').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function stableRevision(seed: string): string {
  return createHash('sha1').update(`revision:${seed}`).digest('hex');
}

/** Formats milliseconds the way Go prints a time.Duration ("245.3ms", "12.3s", "1m5s"). */
export function goDuration(ms: number): string {
  const num = (x: number): string => String(Number(x.toFixed(3)));
  if (ms === 0) return '0s';
  if (ms < 1) return `${num(ms * 1000)}µs`;
  if (ms < 1000) return `${num(ms)}ms`;
  const totalSeconds = ms / 1000;
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds - h * 3600 - m * 60;
  return `${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${num(s)}s`;
}
