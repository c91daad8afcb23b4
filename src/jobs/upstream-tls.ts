import type { Logger } from 'pino';
import { MAX_CONFIG_FILE_BYTES, fileProblem, readBoundedFileSync } from '../config-fields/bounded-file.js';
import type { TargetTls } from '../config-fields/target-tls.js';
import { ClientCertificate } from '../upstream/client-certificate.js';
import type { UpstreamTls } from '../upstream/connector.js';

/** A target's `tls` as its client speaks it: the CA read now, the client certificate followed as its files change. */
export function upstreamTls(target: { name: string; tls: TargetTls }, log: Logger): UpstreamTls {
  const t = target.tls;
  const files = t.cert_file && t.key_file ? { cert_file: t.cert_file, key_file: t.key_file } : undefined;
  return {
    insecureSkipVerify: t.insecure_skip_verify,
    ...(t.ca_file ? { ca: readCaFile(t.ca_file) } : {}),
    ...(t.server_name ? { serverName: t.server_name } : {}),
    ...(t.min_version ? { minVersion: t.min_version } : {}),
    ...(files
      ? {
          clientCertificate: new ClientCertificate(files.cert_file, files.key_file, (e) =>
            e.kind === 'rotated'
              ? log.info({ target: target.name, files }, 'client certificate files changed: new connections present them')
              : log.warn(
                  { target: target.name, problem: e.problem },
                  'new client certificate files not taken (the previous pair stays); retrying when they change again',
                ),
          ),
        }
      : {}),
  };
}

function readCaFile(path: string): Buffer {
  try {
    return readBoundedFileSync(path, MAX_CONFIG_FILE_BYTES);
  } catch (e) {
    throw new Error(`tls.ca_file: cannot read ${path} (${fileProblem(e)})`, { cause: e });
  }
}
