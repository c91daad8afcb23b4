import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ServeTls } from './http.js';

/** Command-line options every simulator takes: where to listen, an optional scenario file, and TLS. */
export function simulatorArgs(argv: string[], defaultPort: number): { port: number; host: string; scenario?: string; tls?: ServeTls; profile?: string } {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: String(defaultPort) },
      host: { type: 'string', default: '127.0.0.1' },
      scenario: { type: 'string' },
      profile: { type: 'string' },
      'tls-cert-file': { type: 'string' },
      'tls-key-file': { type: 'string' },
      'tls-client-ca-file': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      'options: --port=N (0 picks a free port) --host=ADDR --scenario=FILE.json --profile=NAME (older release shapes) --tls-cert-file=PEM --tls-key-file=PEM --tls-client-ca-file=PEM (require client certificates from these CAs)\n',
    );
    process.exit(0);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port: not a port number: ${values.port}\n`);
    process.exit(2);
  }
  const certFile = values['tls-cert-file'];
  const keyFile = values['tls-key-file'];
  if ((certFile === undefined) !== (keyFile === undefined)) {
    process.stderr.write('--tls-cert-file and --tls-key-file go together\n');
    process.exit(2);
  }
  const clientCaFile = values['tls-client-ca-file'];
  if (clientCaFile !== undefined && certFile === undefined) {
    process.stderr.write('--tls-client-ca-file needs --tls-cert-file and --tls-key-file\n');
    process.exit(2);
  }
  const clientCa = clientCaFile ? { clientCa: readFileSync(clientCaFile) } : {};
  const tls = certFile && keyFile ? { cert: readFileSync(certFile), key: readFileSync(keyFile), ...clientCa } : undefined;
  return {
    port,
    host: values.host ?? '127.0.0.1',
    ...(values.scenario ? { scenario: values.scenario } : {}),
    ...(values.profile ? { profile: values.profile } : {}),
    ...(tls ? { tls } : {}),
  };
}
