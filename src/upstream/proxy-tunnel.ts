import type { Socket } from 'node:net';
import type { Client } from 'undici';
import { undici } from './undici.js';
import { UpstreamError, reasonForStatus, toUpstreamError } from './errors.js';
import { proxyAuthorization } from './proxy-choice.js';
import { proxyError, proxyName, type ProxyName } from './proxy-failure.js';
import { redactText } from './redact.js';

/**
 * A proxy's answers to CONNECT that say the target could not be reached through it: the target's
 * to answer for (as a forwarded request's 502 is), not the proxy's. Any other refusal is the proxy's.
 */
const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * A way to an https target through an HTTP proxy: one CONNECT per connection, the TLS handshake
 * with the target then made over the tunnel (so the target's certificate and vigil's client
 * certificate are end to end, and the proxy sees neither the requests nor the token).
 */
export class ProxyTunnel {
  private readonly client: Client;
  private readonly authorization: string | undefined;
  /** The proxy as errors name it: its URL with the password `xxxxx`. */
  readonly name: ProxyName;

  /** `secrets`: the proxy's credentials in every form (`proxySecrets`), kept out of the errors a CONNECT raises. */
  constructor(
    proxy: URL,
    timeoutMs: number,
    private readonly secrets: readonly string[],
  ) {
    this.client = new (undici().Client)(proxy.origin, { connect: { timeout: timeoutMs } });
    this.authorization = proxyAuthorization(proxy);
    this.name = proxyName(proxy);
  }

  /**
   * An open tunnel to host:port. A proxy that cannot be reached, refuses the CONNECT or answers what
   * is not HTTP fails with reason `proxy`; one that says the target is out of its reach (502, 503,
   * 504) with the status's reason; running out of time (`signal`) as a timeout.
   */
  async open(host: string, port: number, signal?: AbortSignal): Promise<Socket> {
    const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    let answer: { socket: Socket; statusCode: number };
    try {
      answer = (await this.client.connect({
        path: authority,
        headers: { host: authority, ...(this.authorization ? { 'proxy-authorization': this.authorization } : {}) },
        ...(signal ? { signal } : {}),
      })) as unknown as { socket: Socket; statusCode: number };
    } catch (e) {
      if (signal?.aborted) throw Object.assign(e as Error, { message: redactText(`proxy ${this.name.shown}: ${(e as Error).message}`, this.secrets) });
      throw proxyError(this.name, redactText(`${toUpstreamError(e).message} (CONNECT ${authority})`, this.secrets));
    }
    const status = answer.statusCode;
    if (status === 200) return answer.socket;
    answer.socket.destroy();
    if (GATEWAY_STATUSES.has(status)) {
      throw new UpstreamError(reasonForStatus(status), `proxy ${this.name.shown} could not reach ${authority}: it answered ${status} to CONNECT`, status);
    }
    throw proxyError(this.name, `answered ${status} to CONNECT ${authority}${status === 407 ? ' (check the credentials of proxy_url)' : ''}`, { status });
  }

  close(): Promise<void> {
    return this.client.destroy();
  }
}
