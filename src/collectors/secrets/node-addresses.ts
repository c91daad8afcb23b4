/**
 * How a node the service reports becomes the address vigil polls it at: its advertised API address
 * as it is, or the target's `nodes.address_template` filled from what the answer says of it
 * (`{{hostname}}`, `{{host}}`: the host of its advertised address). Pure; no I/O.
 */
/** Nodes polled per cluster at most: a bound on what one answer can make vigil poll, and on the series per node it feeds. */
export const MAX_NODES = 64;

/** What an answer says of one node, whatever answer it came from. */
export interface AdvertisedNode {
  /** ha-status `hostname`, autopilot `name`. */
  hostname?: string | undefined;
  /** ha-status `api_address` (a URL), autopilot `address` (host:port of the cluster port). */
  address?: string | undefined;
}

export const TEMPLATE_VARIABLES = ['hostname', 'host'] as const;
const VARIABLE = /\{\{\s*([a-z_]+)\s*\}\}/g;

/** An address without the trailing slash some answers add (`https://10.0.0.2:8200/`); a loop, as `/\/+$/` is quadratic on a run of slashes. */
export function withoutTrailingSlash(a: string): string {
  let end = a.length;
  while (end > 0 && a.charCodeAt(end - 1) === 0x2f) end--;
  return end === a.length ? a : a.slice(0, end);
}

/** The host of an address, a URL or `host:port`; undefined when it has none. */
export function hostOf(address: string | undefined): string | undefined {
  if (!address) return undefined;
  try {
    return new URL(address.includes('://') ? address : `tcp://${address}`).hostname || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Bytes of an address vigil dials: a DNS name (253), its scheme, port and a path prefix fit with room
 * to spare. A longer one is no node's: it would be a megabyte label value and log line at every poll.
 */
export const MAX_ADDRESS_BYTES = 512;

const tooLong = (address: string) => address.length > MAX_ADDRESS_BYTES || Buffer.byteLength(address) > MAX_ADDRESS_BYTES;

/** A usable address to poll: http or https, no credentials, at most MAX_ADDRESS_BYTES; anything else an answer says is not followed. */
export function pollable(address: string | undefined): string | undefined {
  if (!address || tooLong(address)) return undefined;
  try {
    const u = new URL(address);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || !u.hostname) return undefined;
    return withoutTrailingSlash(address);
  } catch {
    return undefined;
  }
}

/** `template` with its variables filled; undefined when the answer lacks one it uses. */
export function fillTemplate(template: string, n: AdvertisedNode): string | undefined {
  const values: Record<string, string | undefined> = { hostname: n.hostname || undefined, host: hostOf(n.address) };
  let missing = false;
  const filled = template.replace(VARIABLE, (_m, name: string) => {
    const v = values[name];
    if (v === undefined || !/^[A-Za-z0-9.:[\]_-]+$/.test(v)) missing = true;
    return v ?? '';
  });
  return missing ? undefined : pollable(filled);
}

/** The variables a template uses that vigil does not know: the config check's error. */
export const unknownVariables = (template: string): string[] =>
  [...template.matchAll(VARIABLE)].map((m) => m[1]!).filter((v) => !(TEMPLATE_VARIABLES as readonly string[]).includes(v));

/** How the nodes one answer names are addressed: by the template, or as advertised. */
export type NodeAddressing = (n: AdvertisedNode, kind: 'api' | 'cluster') => string | undefined;

/**
 * Without a template, an API address is polled as advertised, and a raft server (which advertises
 * its cluster port) at its host with the scheme and port of the cluster's configured address.
 */
export function nodeAddressing(configured: string, template: string | undefined): NodeAddressing {
  if (template) return (n) => fillTemplate(template, n);
  const base = new URL(configured);
  return (n, kind) => {
    if (kind === 'api') return pollable(n.address);
    const host = hostOf(n.address);
    if (!host) return undefined;
    const u = new URL(base.href);
    u.hostname = host;
    return pollable(u.href);
  };
}
