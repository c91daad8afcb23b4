import type { Socket } from 'node:net';
import { Client } from 'undici';
import { UpstreamError, reasonForStatus } from './errors.js';
import { proxyAuthorization } from './proxy-choice.js';
import { redactText } from './redact.js';

/**
 * A way to an https target through an HTTP proxy: one CONNECT per connection, the TLS handshake
 * with the target then made over the tunnel (so the target's certificate and vigil's client
 * certificate are end to end, and the proxy sees neither the requests nor the token).
 */
export class ProxyTunnel {
  private readonly client: Client;
  private readonly authorization: string | undefined;
  /** The proxy as errors name it: its origin, never its credentials. */
  readonly shown: string;

  /** `secrets`: the proxy's credentials in every form (`proxySecrets`), kept out of the errors a CONNECT raises. */
  constructor(
    proxy: URL,
    timeoutMs: number,
    private readonly secrets: readonly string[],
  ) {
    this.client = new Client(proxy.origin, { connect: { timeout: timeoutMs } });
    this.authorization = proxyAuthorization(proxy);
    this.shown = proxy.origin;
  }

  /** An open tunnel to host:port; a refusal is an UpstreamError with the proxy's status. */
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
      throw Object.assign(e as Error, { message: redactText(`proxy ${this.shown}: ${(e as Error).message}`, this.secrets) });
    }
    if (answer.statusCode === 200) return answer.socket;
    answer.socket.destroy();
    throw new UpstreamError(
      reasonForStatus(answer.statusCode),
      `proxy ${this.shown} answered ${answer.statusCode} to CONNECT ${authority}${answer.statusCode === 407 ? ' (check the credentials of proxy_url)' : ''}`,
      answer.statusCode,
    );
  }

  close(): Promise<void> {
    return this.client.destroy();
  }
}
