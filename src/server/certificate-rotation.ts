import type https from 'node:https';
import type { Logger } from 'pino';
import type { HttpTelemetry } from './telemetry.js';
import { filesVersion } from '../support/files-version.js';
import { secureOptions, tlsFiles, type SecureOptions } from './tls-context.js';
import type { TlsSettings } from './web-config.js';

/** How often certificate files are checked for a rotation. */
const TLS_POLL_MS = 1000;

/** The TLS settings an HTTPS server applies now: a reloaded web config replaces them. */
export interface CurrentTls {
  settings: TlsSettings;
}

export interface CertificateRotation {
  /** Checks new settings (rejecting when they cannot be used) and returns what applies them. */
  prepare(t: TlsSettings): Promise<() => void>;
  stop(): void;
}

/** Keeps an HTTPS server's certificates current: re-read when their files change, or replaced by `prepare`. */
export async function rotateCertificates(
  server: https.Server,
  tls: CurrentTls,
  opts: { log?: Logger; telemetry?: HttpTelemetry },
): Promise<CertificateRotation> {
  let version = await filesVersion(tlsFiles(tls.settings));
  let polling = false;

  const use = (next: SecureOptions) => {
    server.setSecureContext(next);
    opts.telemetry?.certificate(next.cert as string | undefined);
    // Read per connection by Node's TLS server: a reloaded client_auth_type applies to new connections.
    Object.assign(server, { requestCert: next.requestCert, rejectUnauthorized: next.rejectUnauthorized });
  };

  /** Re-reads the files when any changed; a pair that does not load yet (mid-rotation) is skipped. */
  const reread = async (t: TlsSettings) => {
    const v = await filesVersion(tlsFiles(t));
    if (v === version) return;
    version = v;
    use(await secureOptions(t));
    opts.log?.info({ files: tlsFiles(t) }, 'certificate files changed: new connections use them');
  };

  const poll = setInterval(() => {
    if (polling) return;
    polling = true;
    void reread(tls.settings)
      .catch((e: Error) => opts.log?.warn({ err: e.message }, 'new certificate files not taken (the previous ones stay); retrying when they change again'))
      .finally(() => (polling = false));
  }, TLS_POLL_MS).unref();

  return {
    prepare: async (t) => {
      const [next, v] = await Promise.all([secureOptions(t), filesVersion(tlsFiles(t))]);
      return () => {
        use(next);
        tls.settings = t;
        version = v;
      };
    },
    stop: () => clearInterval(poll),
  };
}
