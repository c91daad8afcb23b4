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
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startSwitchableProxy(upstream: URL): Promise<SwitchableProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
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
    restore: () => listen(port),
    close: stop,
  };
}
