import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A small forward proxy on a loopback port: CONNECT tunnels (https targets) and absolute-form
 * requests (plain http targets), each counted by the authority it was asked for, with the
 * Proxy-Authorization each carried. With `credentials`, anything else gets a 407.
 */
export interface ForwardProxy {
  readonly url: string;
  /** CONNECTs accepted, by `host:port`. */
  readonly tunnels: Map<string, number>;
  /** Plain requests forwarded, by `host:port`. */
  readonly forwarded: Map<string, number>;
  /** Every Proxy-Authorization header received (undefined: none). */
  readonly authorizations: Array<string | undefined>;
  close(): Promise<void>;
}

const count = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);

export async function startForwardProxy(credentials?: { user: string; password: string }): Promise<ForwardProxy> {
  const expected = credentials && `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
  const tunnels = new Map<string, number>();
  const forwarded = new Map<string, number>();
  const authorizations: Array<string | undefined> = [];
  const sockets = new Set<net.Socket>();
  const allowed = (req: http.IncomingMessage) => {
    const auth = req.headers['proxy-authorization'];
    authorizations.push(auth);
    return !expected || auth === expected;
  };
  const server = http.createServer((req, res) => {
    if (!allowed(req)) return res.writeHead(407, { 'proxy-authenticate': 'Basic realm="proxy"' }).end();
    const target = new URL(req.url ?? '/');
    count(forwarded, target.host);
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    if (!allowed(req)) return client.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n');
    const [host = '', port = ''] = (req.url ?? '').split(/:(?=\d+$)/);
    count(tunnels, `${host}:${port}`);
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (s: net.Socket) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    forwarded,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
