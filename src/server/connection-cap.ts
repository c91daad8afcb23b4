import type http from 'node:http';
import type { Socket } from 'node:net';

interface Connection {
  socket: Socket;
  /** Requests being answered on it. */
  busy: number;
}

const keyOf = (s: { remoteAddress?: string | undefined; remotePort?: number | undefined }) => `${s.remoteAddress ?? ''}|${s.remotePort ?? 0}`;

/**
 * A cap on open connections that a flood cannot turn against a scraper. Node's `maxConnections`
 * refuses the newest connection, so 1000 slow-loris sockets would lock Prometheus out until they
 * time out; here a new connection over the cap closes the oldest *idle* one instead (no request in
 * progress: a keep-alive connection between requests, or one still trickling its headers). A
 * scrape's connection is idle only for the moment before its request line arrives, so it is the
 * attacker's old sockets that go.
 */
export class ConnectionCap {
  /** In the order they came: the first idle one is the oldest. Keyed by address and port (the TCP socket under a TLS one has the same). */
  private readonly open = new Map<string, Connection>();
  private evictedTotal = 0;

  constructor(
    private readonly max: number,
    private readonly onEvict: () => void = () => undefined,
  ) {}

  get size(): number {
    return this.open.size;
  }

  get evicted(): number {
    return this.evictedTotal;
  }

  admit(socket: Socket): void {
    if (this.open.size >= this.max && !this.evictOldestIdle()) {
      socket.destroy();
      return;
    }
    const key = keyOf(socket);
    this.open.set(key, { socket, busy: 0 });
    socket.once('close', () => {
      if (this.open.get(key)?.socket === socket) this.open.delete(key);
    });
  }

  /** Marks the request's connection busy until its answer is done or the client is gone. */
  busy(req: http.IncomingMessage, res: http.ServerResponse): void {
    const c = this.open.get(keyOf(req.socket));
    if (!c) return;
    c.busy++;
    res.once('close', () => c.busy--);
  }

  private evictOldestIdle(): boolean {
    for (const c of this.open.values()) {
      if (c.busy > 0) continue;
      this.open.delete(keyOf(c.socket));
      c.socket.destroy();
      this.evictedTotal++;
      this.onEvict();
      return true;
    }
    return false;
  }
}
