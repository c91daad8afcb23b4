import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A hostile or careless proxy on a loopback port that forwards nothing: it answers every
 * absolute-form request and every CONNECT itself, echoing what it was sent (the Proxy-Authorization
 * header, and the credentials it decodes from it) in an error body, as some proxies and the hops
 * behind them do. What it answers is chosen by the port of the authority asked for, so one proxy
 * serves several targets that each meet another misbehaviour.
 */
export interface EchoAnswer {
  status: number;
  /** `json`: `{"errors":["<echo>"]}`; `text`: the echo as plain text; `garbage`: no HTTP at all, the echo raw on the wire. */
  body: 'json' | 'text' | 'garbage';
}

export interface EchoingProxy {
  readonly url: string;
  /** Requests and CONNECTs answered, by `host:port` asked for. */
  readonly asked: Map<string, number>;
  close(): Promise<void>;
}

/** What the proxy says back: the header as received and the credentials in it, decoded. */
function echo(headers: http.IncomingHttpHeaders): string {
  const auth = headers['proxy-authorization'] ?? '';
  const credentials = Buffer.from(auth.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
  const password = credentials.slice(credentials.indexOf(':') + 1);
  return `proxy-authorization: ${auth} (user and password ${credentials}, password ${password}) denied`;
}

function body(kind: EchoAnswer['body'], text: string): string {
  return kind === 'json' ? JSON.stringify({ errors: [text] }) : text;
}

const answerHead = (status: number, length: number) =>
  `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Whatever'}\r\ncontent-type: text/plain\r\ncontent-length: ${length}\r\nconnection: close\r\n\r\n`;

export async function startEchoingProxy(answerFor: (port: string) => EchoAnswer): Promise<EchoingProxy> {
  const asked = new Map<string, number>();
  const sockets = new Set<Socket>();
  const count = (authority: string) => asked.set(authority, (asked.get(authority) ?? 0) + 1);
  const server = http.createServer((req, res) => {
    const target = new URL(req.url ?? '/', 'http://unknown');
    count(target.host);
    const a = answerFor(target.port);
    const text = echo(req.headers);
    if (a.body === 'garbage') return void req.socket.end(`NOT HTTP ${text}\r\n\r\n`);
    const b = body(a.body, text);
    res.writeHead(a.status, { 'content-type': a.body === 'json' ? 'application/json' : 'text/plain', connection: 'close' }).end(b);
  });
  server.on('connect', (req: http.IncomingMessage, client: Socket) => {
    sockets.add(client);
    client.on('error', () => undefined);
    const authority = req.url ?? '';
    count(authority);
    const a = answerFor(authority.split(':').at(-1) ?? '');
    const text = echo(req.headers);
    if (a.body === 'garbage') return void client.end(`NOT HTTP ${text}\r\n\r\n`);
    const b = body(a.body, text);
    client.end(`${answerHead(a.status, Buffer.byteLength(b))}${b}`);
  });
  server.on('connection', (s: Socket) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
