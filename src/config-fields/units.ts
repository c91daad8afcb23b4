/** Prometheus-style durations: `500ms`, `15s`, `5m`, `1h30m`, `30d`, `2w`. Returns milliseconds. */
export function parseDuration(s: string): number | undefined {
  const units: Record<string, number> = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3, y: 365 * 86400e3 };
  if (!/^(\d+(ms|s|m|h|d|w|y))+$/.test(s)) return undefined;
  let total = 0;
  for (const [, n, u] of s.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g)) total += Number(n) * (units[u as string] ?? 0);
  return total;
}

/** Byte sizes: `512`, `64KiB`, `10MiB`, `1GB`. Returns bytes. */
export function parseSize(s: string | number): number | undefined {
  if (typeof s === 'number') return Number.isInteger(s) && s >= 0 ? s : undefined;
  const m = /^(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB)?$/.exec(s.trim());
  if (!m) return undefined;
  const mult: Record<string, number> = { B: 1, KB: 1e3, KiB: 1024, MB: 1e6, MiB: 1024 ** 2, GB: 1e9, GiB: 1024 ** 3 };
  return Math.round(Number(m[1]) * (mult[m[2] ?? 'B'] ?? 1));
}

/** Node fires a longer timer at once (TimeoutOverflowWarning): a 30d wait must not become 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A delay a timer can take: within 0 .. MAX_TIMER_MS (NaN: 0). */
export function timerMs(ms: number): number {
  return ms > 0 ? Math.min(ms, MAX_TIMER_MS) : 0;
}
