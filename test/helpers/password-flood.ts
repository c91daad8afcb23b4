import http from 'node:http';

/**
 * Wrong passwords from many source addresses, as a guesser who rotates addresses sends them: every
 * request on a connection of its own, bound to the next address of a list (127.0.0.0/8 gives a
 * test as many loopback addresses as it wants), `open` of them in flight at all times.
 */

export interface PlainAnswer {
  status: number;
  retryAfter: number | undefined;
  text: string;
}

/** One request from `localAddress` on a connection of its own. */
export function send(url: string, opts: { localAddress: string; authorization: string; method?: string; path?: string; body?: string }): Promise<PlainAnswer> {
  return new Promise((resolve, reject) => {
    const u = new URL(opts.path ?? '/metrics', url);
    const headers: http.OutgoingHttpHeaders = { authorization: opts.authorization };
    if (opts.body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(opts.body) });
    const req = http.request(u, { method: opts.method ?? 'GET', localAddress: opts.localAddress, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        const after = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, retryAfter: after === undefined ? undefined : Number(after), text });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** `count` loopback addresses from 127.`second`.0.1 on (never 127.0.0.1). */
export function loopbackAddresses(second: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `127.${second}.${Math.floor((i + 1) / 256)}.${(i + 1) % 256}`);
}

export const basicAuth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

export interface Flood {
  /** Answers by status so far. */
  readonly statuses: Map<number, number>;
  /** Addresses whose guess was answered 401 (a bcrypt round said no) at least once. */
  readonly failed: Set<string>;
  stop(): Promise<void>;
}

/**
 * Keeps `open` wrong-password requests in flight, each from the next of `addresses` in turn, until
 * stopped; after a refusal without a check (429, 503) a request waits `pauseMs` before the next, so
 * a flood on the machine that also runs vigil does not spend its CPU on refusals alone.
 */
export function passwordFlood(url: string, opts: { addresses: string[]; open: number; user: string; pauseMs?: number }): Flood {
  const statuses = new Map<number, number>();
  const failed = new Set<string>();
  let running = true;
  let n = 0;
  const one = async () => {
    while (running) {
      const localAddress = opts.addresses[n++ % opts.addresses.length] as string;
      const a = await send(url, { localAddress, authorization: basicAuth(opts.user, `guess-${n}`) }).catch(() => ({ status: 0 }));
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      if (a.status === 401) failed.add(localAddress);
      else if (opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
    }
  };
  const loops = Array.from({ length: opts.open }, one);
  return {
    statuses,
    failed,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}
