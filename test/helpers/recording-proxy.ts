import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A reverse proxy on a loopback port that forwards every request to `upstream` and records it: what a client really sent. */
export interface RecordingProxy {
  readonly url: string;
  /** `METHOD /path?query` of each request, in the order they came. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const requests: string[] = [];
  const to = new URL(upstream);
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const out = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
