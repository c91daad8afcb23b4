import type http from 'node:http';

let serial = 0;

/** An object's text (from `{`) with one more member first: a serial no two answers share. */
function objectWithSerial(text: string): string {
  serial += 1;
  const rest = text.slice(1).trimStart();
  return `{"sim_serial":${serial}${rest.startsWith('}') ? '' : ','}${rest}`;
}

/**
 * A JSON object's text with one more member, a serial no two answers share; a list of objects (a
 * page of nodes, jobs, evaluations) with it in its first object; any other text as it is.
 */
function withSerial(text: string): string {
  if (text.startsWith('{')) return objectWithSerial(text);
  const first = text.startsWith('[') ? text.slice(1).trimStart() : '';
  return first.startsWith('{') ? `[${objectWithSerial(first)}` : text;
}

/**
 * Makes every JSON object this response answers with differ from the last answer to the same
 * request (one more member, a serial), as a service whose every answer changed between polls: what
 * a client that reuses unchanged answers must still decode in full. The length is no longer known
 * when the headers go out, so the answer is sent chunked. A list of objects (a listing's page) gets
 * the member in its first object; a list of strings (a client's servers) is left as it is.
 */
export function varyEachAnswer(res: http.ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => http.ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const args = rest.map((a) =>
      a && typeof a === 'object' && !Array.isArray(a) ? Object.fromEntries(Object.entries(a).filter(([k]) => k.toLowerCase() !== 'content-length')) : a,
    );
    return writeHead(status, ...args);
  }) as typeof res.writeHead;
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => http.ServerResponse;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (!res.headersSent) res.removeHeader('content-length');
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
    return end(text === undefined ? chunk : withSerial(text), ...rest);
  }) as typeof res.end;
}
