import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { startVigil, type VigilProcess } from './process.js';

/** vigil behind a web config, as an operator runs it, and a client that speaks TLS with test certificates. */

/**
 * Starts vigil (its own process) with a config and a web config written to `dir`; resolves once it
 * listens (`url` set) and has loaded the config, and once its alert sink's store has opened when the
 * config has a sink (the jobs do not wait for it, a webhook would).
 */
export async function startSecuredVigil(dir: string, opts: { config: string; webConfig?: string; flags?: string[] }): Promise<VigilProcess> {
  const configFile = join(dir, 'vigil.yml');
  writeFileSync(configFile, opts.config);
  const flags = [`--config.file=${configFile}`, '--web.listen-address=127.0.0.1:0', '--log.format=json', '--log.level=debug', ...(opts.flags ?? [])];
  if (opts.webConfig !== undefined) {
    writeFileSync(join(dir, 'web.yml'), opts.webConfig);
    flags.push(`--web.config.file=${join(dir, 'web.yml')}`);
  }
  const p = startVigil(flags);
  await p.ready('configuration loaded');
  if (/^alert_sink:/m.test(opts.config)) await p.ready('alert sink ready');
  return p;
}

export interface TlsClient {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** One request on a fresh connection (so each sees the server's current certificate and settings). */
export async function request(url: string, init: { method?: string; headers?: Record<string, string>; body?: string; tls?: TlsClient } = {}): Promise<Answer> {
  const agent = new Agent({ connect: { ...init.tls, rejectUnauthorized: init.tls?.ca !== undefined }, pipelining: 0 });
  try {
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      headers: init.headers ?? {},
      ...(init.body !== undefined ? { body: init.body } : {}),
      dispatcher: agent,
    });
    return { status: res.status, headers: res.headers as unknown as Headers, text: await res.text() };
  } finally {
    await agent.close();
  }
}

export const basicAuth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
