import { isIP } from 'node:net';

/** `0.0.0.0:9810`, `:9810`, `[::1]:9810` → host and port. */
export function parseListenAddress(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  const host = addr.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  return { host: host || '0.0.0.0', port: Number(addr.slice(i + 1)) };
}

/** Whether only this machine can reach a listen address (127.0.0.0/8, ::1, localhost). */
export function isLoopbackAddress(addr: string): boolean {
  const { host } = parseListenAddress(addr);
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || /^::ffff:127\./i.test(host);
}
