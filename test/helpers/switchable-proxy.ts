import net from 'node:net';

/**
 * A TCP proxy on a loopback port in front of an upstream, that can stop listening and start again
 * on the same port: an upstream that refuses connections (down, or a firewall's reject), then
 * comes back, at an address that never changes.
 */
export interface SwitchableProxy {
  readonly url: string;
  /** Closes the listener and every open connection: connections are refused until restore(). */
  refuse(): Promise<void>;
  /**
   * Drops every open connection and accepts new ones without ever answering (a firewall's drop, a
   * host gone from the network) until restore(): a client learns nothing until its own timeout.
   */
  blackhole(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startSwitchableProxy(upstream: URL): Promise<SwitchableProxy> {
  const sockets = new Set<net.Socket>();
  let holding = false;
  const server = net.createServer((client) => {
    if (holding) {
      sockets.add(client.on('close', () => sockets.delete(client)).on('error', () => client.destroy()));
      return;
    }
    const up = net.connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, up]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(up).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  return {
    url: `http://127.0.0.1:${port}`,
    refuse: stop,
    blackhole: () => {
      holding = true;
      for (const s of sockets) s.destroy();
    },
    restore: async () => {
      holding = false;
      if (!server.listening) await listen(port);
    },
    close: stop,
  };
}
