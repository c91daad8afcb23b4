/**
 * The requests the estate's simulators receive, recorded in the estate child for the collection
 * floor (`floor-main.ts`): what one vigil collection asked, to be asked again by a bare client.
 *
 * The simulators are left as they are: every request any `http` server of this process receives is
 * seen on Node's `diagnostics_channel` 'http.server.request.start', and the status it was answered
 * on 'http.server.response.finish'. A control listener on 127.0.0.1
 * (its own requests are not recorded) starts and ends a recording:
 *
 *   POST /start   forget what was recorded and record from now on
 *   POST /stop    stop, write what was recorded as NDJSON (one `RecordedRequest` a line) to a new
 *                 file in `dir`, answer `{ "file": …, "requests": n, "truncated": bool }`
 *
 * At most `MAX_REQUESTS` are kept (a runaway recording stops growing; `truncated` says so).
 * `startRequestLog` prints `request-log <url>` once it listens.
 */
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** One request as vigil sent it: enough to ask for the same answer again. */
export interface RecordedRequest {
  method: string;
  /** http://127.0.0.1:<port><path and query> */
  url: string;
  /** The headers that choose or allow the answer (tokens, namespace, accept*); the rest (host, connection, user-agent) are the client's own. */
  headers: Record<string, string>;
  /** The status vigil was answered (some optional endpoints answer 403 or 501 by design); absent if the answer was not finished when the recording stopped. */
  status?: number;
}

export const MAX_REQUESTS = 100_000;

/** Headers the answer depends on: accept*, authorization, and every x-* (x-secrets-token, x-scheduler-token, x-secrets-namespace, ...). */
const kept = (name: string) => name === 'accept' || name === 'accept-encoding' || name === 'authorization' || name.startsWith('x-');

interface ServerMessage {
  request: IncomingMessage;
  response: ServerResponse;
  server: Server;
}

export async function startRequestLog(dir: string): Promise<Server> {
  let recording = false;
  let truncated = false;
  let seq = 0;
  let log: RecordedRequest[] = [];
  const pending = new WeakMap<IncomingMessage, RecordedRequest>();

  const control = createServer((req, res) => {
    const answer = (status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'POST' && req.url === '/start') {
      [recording, truncated, log] = [true, false, []];
      return answer(200, { recording });
    }
    if (req.method === 'POST' && req.url === '/stop') {
      const file = join(dir, `requests-${++seq}.ndjson`);
      writeFileSync(file, log.map((r) => `${JSON.stringify(r)}\n`).join(''));
      const requests = log.length;
      [recording, log] = [false, []];
      return answer(200, { file, requests, truncated });
    }
    answer(404, { error: 'POST /start or /stop' });
  });

  subscribe('http.server.request.start', (message) => {
    const { request, server } = message as ServerMessage;
    if (!recording || server === control) return;
    if (log.length >= MAX_REQUESTS) {
      truncated = true;
      return;
    }
    const { address, port } = server.address() as AddressInfo;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) if (kept(name) && value !== undefined) headers[name] = String(value);
    const recorded: RecordedRequest = { method: request.method ?? 'GET', url: `http://${address}:${port}${request.url ?? '/'}`, headers };
    log.push(recorded);
    pending.set(request, recorded);
  });
  subscribe('http.server.response.finish', (message) => {
    const { request, response } = message as ServerMessage;
    const recorded = pending.get(request);
    if (recorded) recorded.status = response.statusCode;
  });

  await new Promise<void>((r) => control.listen(0, '127.0.0.1', r));
  process.stdout.write(`request-log http://127.0.0.1:${(control.address() as AddressInfo).port}\n`);
  return control;
}
