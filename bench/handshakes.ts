/**
 * What a wrong-password flood does to a new connection: TLS handshakes timed one after another
 * while clients, each on its own kept-alive connection, send wrong passwords at a steady rate.
 * Used by web-security.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { Agent, fetch } from 'undici';
import { basicAuth } from '../test/helpers/secured-vigil.js';

export interface Latency {
  median: number;
  p99: number;
  n: number;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const round1 = (ms: number) => Math.round(ms * 10) / 10;

/** One handshake to `port` (trusting `ca`), in milliseconds from the connect call to the finished handshake. */
function handshake(port: number, ca: Buffer): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, ca }, () => {
      resolve(performance.now() - started);
      s.destroy();
    });
    s.setTimeout(30_000, () => s.destroy(new Error('handshake timed out')));
    s.once('error', reject);
  });
}

/** Handshakes one after another (a pause of `everyMs` between them) for `ms`. */
export async function handshakes(port: number, ca: Buffer, ms: number, everyMs = 50): Promise<Latency> {
  const times: number[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    times.push(await handshake(port, ca));
    await sleep(everyMs);
  }
  times.sort((a, b) => a - b);
  return { median: round1(quantile(times, 0.5)), p99: round1(quantile(times, 0.99)), n: times.length };
}

/**
 * `clients` guessers, each on one kept-alive connection, together sending `perSecond` wrong
 * passwords a second to `url` until stopped; stop() resolves with the count of each answer's status.
 */
export function flood(url: string, ca: Buffer, clients: number, perSecond: number): { stop(): Promise<Map<number, number>> } {
  const statuses = new Map<number, number>();
  let running = true;
  const everyMs = (clients / perSecond) * 1000;
  const client = async (i: number) => {
    const agent = new Agent({ connect: { ca }, connections: 1 });
    // Spread the clients over one period, as independent guessers would be.
    await sleep((everyMs * i) / clients);
    for (let n = 0; running; n++) {
      const started = performance.now();
      const status = await fetch(url, { headers: { authorization: basicAuth('prometheus', `guess-${i}-${n}`) }, dispatcher: agent }).then(
        async (r) => (await r.arrayBuffer(), r.status),
        () => 0,
      );
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      await sleep(Math.max(0, everyMs - (performance.now() - started)));
    }
    await agent.close();
  };
  const all = Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
  return {
    stop: async () => {
      running = false;
      await all;
      return statuses;
    },
  };
}
