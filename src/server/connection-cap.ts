import type http from 'node:http';
import type { Socket } from 'node:net';
import { writeProgress } from './write-progress.js';

interface Connection {
  socket: Socket;
  /** Requests being answered on it. */
  busy: number;
  /** The socket answers are written to (under TLS, the TLS socket over `socket`). */
  writer?: Socket;
  /** Answer bytes the client had taken when last seen, and when that last grew. */
  taken: number;
  progressAt: number;
}

export interface CapOptions {
  /** An answer that takes no bytes for this long is cut. */
  writeTimeoutMs: number;
  /** An idle connection was closed to make room. */
  onEvict?: () => void;
  /** A connection was cut because its client stopped reading its answer. */
  onStalled?: () => void;
}

/** At the cap, an answer stuck this long (or the write timeout, if shorter) loses its connection before a newcomer is refused. */
const STALLED_AT_CAP_MS = 1000;

const keyOf = (s: { remoteAddress?: string | undefined; remotePort?: number | undefined }) => `${s.remoteAddress ?? ''}|${s.remotePort ?? 0}`;

/**
 * A cap on open connections that a flood cannot turn against a scraper. Node's `maxConnections`
 * refuses the newest connection, so 1000 slow-loris sockets would lock Prometheus out until they
 * time out; here a new connection over the cap closes the oldest *idle* one instead (no request in
 * progress: a keep-alive connection between requests, or one still trickling its headers), and
 * failing that the one whose answer has been stuck longest (a client that asked for a large
 * /metrics and reads none of it). A scrape's connection is idle only for the moment before its
 * request line arrives, and it reads what it asked for, so it is the attacker's sockets that go.
 *
 * It also bounds how long an answer may stand still: one whose client takes no byte of it for the
 * write timeout is cut. Progress, not the whole answer, is timed, so a slow reader on a long link
 * keeps its connection as long as it keeps reading.
 */
export class ConnectionCap {
  /** In the order they came: the first idle one is the oldest. Keyed by address and port (the TCP socket under a TLS one has the same). */
  private readonly open = new Map<string, Connection>();
  private evictedTotal = 0;
  private readonly watch: NodeJS.Timeout;

  constructor(
    private readonly max: number,
    private readonly opts: CapOptions,
  ) {
    this.watch = setInterval(() => this.cutStalled(), Math.min(1000, Math.max(50, opts.writeTimeoutMs / 4)));
    this.watch.unref();
  }

  get size(): number {
    return this.open.size;
  }

  get evicted(): number {
    return this.evictedTotal;
  }

  admit(socket: Socket): void {
    if (this.open.size >= this.max && !this.evictOldestIdle() && !this.evictMostStalled()) {
      socket.destroy();
      return;
    }
    const key = keyOf(socket);
    this.open.set(key, { socket, busy: 0, taken: 0, progressAt: performance.now() });
    socket.once('close', () => {
      if (this.open.get(key)?.socket === socket) this.open.delete(key);
    });
  }

  /** Marks the request's connection busy until its answer is done or the client is gone. */
  busy(req: http.IncomingMessage, res: http.ServerResponse): void {
    const c = this.open.get(keyOf(req.socket));
    if (!c) return;
    c.busy++;
    c.writer = req.socket;
    c.taken = writeProgress(req.socket).taken;
    c.progressAt = performance.now();
    res.once('close', () => c.busy--);
  }

  stop(): void {
    clearInterval(this.watch);
  }

  /** How long the connection's answer has taken no byte (0 when nothing waits to be taken). */
  private stalledFor(c: Connection, now: number): number {
    if (c.busy === 0 || !c.writer) return 0;
    const { taken, waiting } = writeProgress(c.writer);
    if (waiting === 0 || taken !== c.taken) {
      c.taken = taken;
      c.progressAt = now;
      return 0;
    }
    return now - c.progressAt;
  }

  private cutStalled(): void {
    const now = performance.now();
    for (const c of this.open.values()) if (this.stalledFor(c, now) >= this.opts.writeTimeoutMs) this.cut(c, this.opts.onStalled);
  }

  private evictOldestIdle(): boolean {
    for (const c of this.open.values()) {
      if (c.busy > 0) continue;
      this.cut(c, this.opts.onEvict);
      this.evictedTotal++;
      return true;
    }
    return false;
  }

  private evictMostStalled(): boolean {
    const now = performance.now();
    let worst: { c: Connection; stalled: number } | undefined;
    for (const c of this.open.values()) {
      const stalled = this.stalledFor(c, now);
      if (stalled >= Math.min(STALLED_AT_CAP_MS, this.opts.writeTimeoutMs) && stalled > (worst?.stalled ?? 0)) worst = { c, stalled };
    }
    if (worst) this.cut(worst.c, this.opts.onStalled);
    return worst !== undefined;
  }

  private cut(c: Connection, counted: (() => void) | undefined): void {
    this.open.delete(keyOf(c.socket));
    c.socket.destroy();
    c.writer?.destroy();
    counted?.();
  }
}
