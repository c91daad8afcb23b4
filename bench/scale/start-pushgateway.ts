import { freePort, type Child, type Children } from './children.js';
import { http, until } from './start-vigil.js';

/** The exposition without vigil's process_*, nodejs_* runtime metrics, which clash with the pushgateway's own. */
export function withoutRuntime(text: string): string {
  const name = (line: string) => (line.startsWith('#') ? (line.split(' ')[2] ?? '') : line);
  return text
    .split('\n')
    .filter((l) => l && !/^(process_|nodejs_)/.test(name(l)))
    .map((l) => `${l}\n`)
    .join('');
}

/** Starts Debian's pushgateway holding `body` (the Go peer); resolves with its /metrics URL. */
export async function startPushgateway(children: Children, body: string): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const child = children.start('pushgateway', '/usr/bin/prometheus-pushgateway', [`--web.listen-address=127.0.0.1:${port}`]);
  const base = `http://127.0.0.1:${port}`;
  await until('the pushgateway to be ready', async () => (await fetch(`${base}/-/ready`)).ok, 30_000);
  await http(`${base}/metrics/job/vigil`, { method: 'PUT', body, headers: { 'content-type': 'text/plain; version=0.0.4' } });
  return { child, url: `${base}/metrics` };
}
