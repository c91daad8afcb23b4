import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.js';
import { waitFor } from './wait.js';
import { requireTool } from './tools.js';

/**
 * Debian's nginx as a reverse proxy on loopback: one process (no master, no user switch), its pid,
 * logs and temp files in a temp dir, stopped by PID. `locations` maps a path to the upstream URL
 * proxy_pass takes (with a path: the prefix is replaced; without: it is passed on).
 */
export interface Nginx {
  url: string;
  errors(): string;
  stop(): Promise<void>;
}

export async function startNginx(locations: Record<string, string>): Promise<Nginx> {
  const bin = requireTool('nginx', 'apt-get install nginx-light');
  const dir = mkdtempSync(join(tmpdir(), 'vigil-nginx-'));
  const port = await freePort();
  const conf = `daemon off; master_process off; worker_processes 1;
pid ${dir}/nginx.pid; error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
${Object.entries(locations)
  .map(([path, upstream]) => `    location ${path} { proxy_pass ${upstream}; proxy_set_header Host $http_host; proxy_buffering off; }`)
  .join('\n')}
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawn(bin, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  await waitFor(
    'nginx listening',
    async () =>
      child.exitCode !== null
        ? Promise.reject(new Error(out))
        : await fetch(url).then(
            () => true,
            () => undefined,
          ),
    20_000,
    { everyMs: 100 },
  ).catch(async (e: Error) => {
    await stop();
    throw new Error(`nginx did not start: ${e.message}\n${out}`);
  });
  return { url, errors: () => out, stop };
}
