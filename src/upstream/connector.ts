import type { TLSSocket } from 'node:tls';
import type { buildConnector } from 'undici';
import { undici } from './undici.js';
import type { TlsVersion } from '../config-fields/target-tls.js';
import type { KeyPair } from '../config-fields/key-pair.js';
import type { ClientCertificate } from './client-certificate.js';
import type { ProxyTunnel } from './proxy-tunnel.js';
import { checkHandshake, type TlsObservation } from './tls-observer.js';
import { failSilentRefusal } from './silent-refusal.js';

/** How vigil speaks TLS to one upstream target (`tls.*` of its config). */
export interface UpstreamTls {
  ca?: Buffer | undefined;
  insecureSkipVerify: boolean;
  /** Sent as SNI and verified in the certificate instead of the address's host. */
  serverName?: string | undefined;
  minVersion?: TlsVersion | undefined;
  clientCertificate?: ClientCertificate | undefined;
}

export interface ConnectorOptions {
  timeoutMs: number;
  tls: UpstreamTls;
  /** Set when the target is reached through a proxy's CONNECT. */
  tunnel?: ProxyTunnel | undefined;
  onTls?: ((o: TlsObservation) => void) | undefined;
}

/**
 * The connector of an https target's pool: through the tunnel when there is one, the handshake
 * always completed so its chain can be observed (`checkHandshake` then refuses what must not
 * pass), with the client certificate current at each new connection (a rotated pair is used by
 * the next one; a connector per pair keeps TLS sessions resumable while it lasts).
 */
export function upstreamConnector(o: ConnectorOptions): buildConnector.connector {
  let built: { pair: KeyPair | undefined; connect: buildConnector.connector } | undefined;
  const connectorFor = (pair: KeyPair | undefined) => {
    if (built?.pair !== pair || !built) {
      const t = o.tls;
      built = {
        pair,
        connect: undici().buildConnector({
          timeout: o.timeoutMs,
          rejectUnauthorized: false,
          ...(t.ca ? { ca: t.ca } : {}),
          ...(pair ? { cert: pair.cert, key: pair.key } : {}),
          ...(t.minVersion ? { minVersion: t.minVersion } : {}),
        }),
      };
    }
    return built.connect;
  };
  return (connectOpts, callback) => {
    void (async () => {
      const pair = await o.tls.clientCertificate?.current();
      const port = Number(connectOpts.port) || 443;
      const httpSocket = o.tunnel ? await o.tunnel.open(connectOpts.hostname, port, AbortSignal.timeout(o.timeoutMs)) : undefined;
      const servername = o.tls.serverName ?? connectOpts.servername;
      connectorFor(pair)({ ...connectOpts, ...(servername ? { servername } : {}), ...(httpSocket ? { httpSocket } : {}) }, (err, socket) => {
        if (err || !socket) return callback(err ?? new Error('no socket'), null);
        const refused = checkHandshake(socket as TLSSocket, o.tls.insecureSkipVerify, o.onTls);
        if (!refused) {
          failSilentRefusal(socket as TLSSocket);
          return callback(null, socket);
        }
        socket.destroy();
        callback(refused, null);
      });
    })().catch((e: unknown) => callback(e as Error, null));
  };
}
