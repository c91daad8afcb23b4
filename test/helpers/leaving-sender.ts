import { connect } from 'node:net';

/**
 * Posts a notification on a new connection and closes it `closeAfterMs` after its last byte went
 * out, answered or not: Alertmanager at its timeout, about to send the notification again.
 */
export function postAndLeave(url: string, body: Buffer, closeAfterMs: number, headers: Record<string, string> = {}): Promise<void> {
  const { hostname, port } = new URL(url);
  const head = Object.entries({ 'content-type': 'application/json', ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return new Promise((resolve) => {
    const s = connect(Number(port), hostname, () => {
      s.write(`POST /webhook/alertmanager HTTP/1.1\r\nHost: x\r\n${head}Content-Length: ${body.length}\r\n\r\n`);
      s.write(body, () => setTimeout(() => s.destroy(), closeAfterMs));
    });
    s.on('data', () => undefined);
    s.on('error', () => undefined);
    s.on('close', () => resolve());
  });
}
