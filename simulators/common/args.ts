import { parseArgs } from 'node:util';

/** Command-line options every simulator takes: where to listen, and an optional scenario file. */
export function simulatorArgs(argv: string[], defaultPort: number): { port: number; host: string; scenario?: string } {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: String(defaultPort) },
      host: { type: 'string', default: '127.0.0.1' },
      scenario: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write('options: --port=N (0 picks a free port) --host=ADDR --scenario=FILE.json\n');
    process.exit(0);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port: not a port number: ${values.port}\n`);
    process.exit(2);
  }
  return { port, host: values.host ?? '127.0.0.1', ...(values.scenario ? { scenario: values.scenario } : {}) };
}
