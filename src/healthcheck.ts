#!/usr/bin/env node
/**
 * The container's HEALTHCHECK: asks the running vigil's /healthz on the address it actually listens
 * on. That address comes from the same place vigil took it: its own --web.listen-address flag, else
 * web.listen_address of its config file; both are read from /proc, so the check follows any flags
 * given after the image name without vigil writing anything (the root filesystem may be read-only).
 * Exit 0 when /healthz answers 2xx, 1 otherwise, with the reason on stderr.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { resolve } from 'node:path';
import { parseFlags } from './cli.js';
import { loadConfig } from './config/load.js';
import { parseListenAddress } from './server.js';
import { loadWebConfig } from './server/web-config.js';

export interface VigilProcess {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The flags of a vigil command line (`node [node flags] …/main.js FLAGS`), or undefined if it is not vigil. */
export function vigilFlags(cmdline: string[]): string[] | undefined {
  const i = cmdline.findIndex((a) => /(^|\/)(dist\/main\.js|vigil)$/.test(a));
  return i < 0 ? undefined : cmdline.slice(i + 1);
}

/** The URL of /healthz for a listen address: a wildcard host is reached on loopback. */
export function healthUrl(address: string, tls = false, routePrefix = '/'): string {
  const { host, port } = parseListenAddress(address);
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const shown = wildcard ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `${tls ? 'https' : 'http'}://${shown}:${port}${routePrefix === '/' ? '' : routePrefix}/healthz`;
}

/** The address the process listens on: its flag, else its config's web.listen_address. */
export async function listenAddressOf(p: VigilProcess): Promise<string> {
  const flags = parseFlags(p.argv);
  if (flags.listenAddress !== undefined) return flags.listenAddress;
  const config = await loadConfig(resolve(p.cwd, flags.configFile), p.env);
  return config.web.listen_address;
}

/** Whether the process serves TLS and asks for basic auth (its --web.config.file). */
export async function webOf(p: VigilProcess): Promise<{ tls: boolean; basicAuth: boolean }> {
  const file = parseFlags(p.argv).webConfigFile;
  if (file === undefined) return { tls: false, basicAuth: false };
  const web = await loadWebConfig(resolve(p.cwd, file));
  return { tls: web.tls !== undefined, basicAuth: web.users.size > 0 };
}

/**
 * Healthy: /healthz answers 2xx, or 401 when basic auth is on (the healthcheck holds no password;
 * the answer still proves vigil serves). Over TLS the certificate is not verified: this is vigil
 * asking itself on its own address, and the answer's status is all that is read.
 */
export function healthyStatus(status: number, basicAuth: boolean): boolean {
  return (status >= 200 && status < 300) || (basicAuth && status === 401);
}

function statusOf(url: string): Promise<number> {
  const get = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolveStatus, reject) => {
    const req = get(url, { timeout: 4000, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolveStatus(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within 4 s`)));
    req.on('error', reject);
    req.end();
  });
}

function readProc(pid: string): VigilProcess | undefined {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    const argv = vigilFlags(cmdline);
    if (argv === undefined) return undefined;
    const env = Object.fromEntries(
      readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    return { argv, cwd: readlinkSync(`/proc/${pid}/cwd`), env };
  } catch {
    return undefined; // gone, or not ours to read
  }
}

async function check(): Promise<string> {
  const self = String(process.pid);
  const vigil = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && d !== self)
    .map(readProc)
    .find(Boolean);
  if (!vigil) throw new Error('no running vigil process found');
  const web = await webOf(vigil);
  const url = healthUrl(await listenAddressOf(vigil), web.tls, parseFlags(vigil.argv).routePrefix);
  const status = await statusOf(url);
  if (!healthyStatus(status, web.basicAuth)) throw new Error(`${url} answered ${status}`);
  return url;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  check().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`vigil healthcheck: ${(e as Error).message}\n`);
      process.exit(1);
    },
  );
}
