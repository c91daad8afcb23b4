import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { ConfigError, describeIssue, yamlMapping } from '../config-fields/errors.js';
import { parseDuration } from '../config-fields/units.js';
import type { RateLimitSettings } from './rate-limit.js';

/**
 * `--web.config.file`, in the format of the Prometheus exporter-toolkit, so a file written for
 * node_exporter works unchanged. Parsing is pure; `loadWebConfig` reads the file. The certificate
 * files it names are read by `tls-context.ts`.
 */

/** Go's names (crypto/tls `CipherSuites()`, what exporter-toolkit accepts) → OpenSSL's. */
export const CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
};

export const CURVES: Readonly<Record<string, string>> = { CurveP256: 'P-256', CurveP384: 'P-384', CurveP521: 'P-521', X25519: 'X25519' };

export const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;

export const CLIENT_AUTH_TYPES = [
  'NoClientCert',
  'RequestClientCert',
  'RequireAnyClientCert',
  'RequireClientCert',
  'VerifyClientCertIfGiven',
  'RequireAndVerifyClientCert',
] as const;
export type ClientAuthType = Exclude<(typeof CLIENT_AUTH_TYPES)[number], 'RequireClientCert'>;

/** The response headers exporter-toolkit lets a web config set, with their allowed values (none: any). */
const EXTRA_HEADERS: Readonly<Record<string, readonly string[] | undefined>> = {
  'Strict-Transport-Security': undefined,
  'X-Content-Type-Options': ['nosniff'],
  'X-Frame-Options': ['deny', 'sameorigin'],
  'X-XSS-Protection': undefined,
  'Content-Security-Policy': undefined,
};

/** A bcrypt hash as Go's and bcryptjs's verifiers accept it ($2a$, $2b$, $2y$; cost 4..31). */
const BCRYPT = /^\$2[aby]?\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

const oneOf = (names: Readonly<Record<string, string>>, what: string) =>
  z.string().superRefine((s, ctx) => {
    if (!Object.hasOwn(names, s)) ctx.addIssue({ code: 'custom', message: `unknown ${what} "${s.slice(0, 80)}" (one of ${Object.keys(names).join(', ')})` });
  });

const tlsVersion = z.enum(Object.keys(TLS_VERSIONS) as [keyof typeof TLS_VERSIONS]);

const tlsServerConfig = z
  .strictObject({
    cert_file: z.string().min(1).optional(),
    key_file: z.string().min(1).optional(),
    cert: z.string().min(1).optional(),
    key: z.string().min(1).optional(),
    client_ca_file: z.string().min(1).optional(),
    client_ca: z.string().min(1).optional(),
    client_auth_type: z.enum(CLIENT_AUTH_TYPES).default('NoClientCert'),
    client_allowed_sans: z.array(z.string()).optional(),
    cipher_suites: z.array(oneOf(CIPHER_SUITES, 'cipher suite')).optional(),
    curve_preferences: z.array(oneOf(CURVES, 'curve')).optional(),
    min_version: tlsVersion.default('TLS12'),
    max_version: tlsVersion.default('TLS13'),
    prefer_server_cipher_suites: z.boolean().default(true),
  })
  .superRefine((t, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (!t.cert_file && !t.cert) issue('cert_file', 'required (or cert) when tls_server_config is given');
    if (!t.key_file && !t.key) issue('key_file', 'required (or key) when tls_server_config is given');
    const auth = t.client_auth_type === 'RequireClientCert' ? 'RequireAnyClientCert' : t.client_auth_type;
    if ((t.client_ca_file || t.client_ca) && auth === 'NoClientCert') issue('client_ca_file', 'set, but client_auth_type is NoClientCert');
    if (auth.includes('Verify') && !t.client_ca_file && !t.client_ca) issue('client_ca_file', `required with client_auth_type ${auth}`);
    if (t.client_allowed_sans && auth !== 'RequireAnyClientCert' && auth !== 'RequireAndVerifyClientCert') {
      issue('client_allowed_sans', 'needs client_auth_type RequireAnyClientCert or RequireAndVerifyClientCert');
    }
    const order = Object.keys(TLS_VERSIONS);
    if (order.indexOf(t.min_version) > order.indexOf(t.max_version)) issue('max_version', `${t.max_version} is below min_version ${t.min_version}`);
  });

const webConfigSchema = z.strictObject({
  tls_server_config: tlsServerConfig.optional(),
  http_server_config: z
    .strictObject({
      /** vigil serves HTTP/1.1; a client offering HTTP/2 by ALPN falls back to it, so either value works. */
      http2: z.boolean().optional(),
      headers: z.record(z.string(), z.string()).default({}),
    })
    .superRefine((h, ctx) => {
      for (const [name, value] of Object.entries(h.headers)) {
        if (!Object.hasOwn(EXTRA_HEADERS, name)) {
          ctx.addIssue({ code: 'custom', path: ['headers', name], message: `can not be configured (one of ${Object.keys(EXTRA_HEADERS).join(', ')})` });
          continue;
        }
        const allowed = EXTRA_HEADERS[name];
        if (allowed && !allowed.includes(value)) ctx.addIssue({ code: 'custom', path: ['headers', name], message: `must be one of ${allowed.join(', ')}` });
        if (/[\r\n\0]/.test(value)) ctx.addIssue({ code: 'custom', path: ['headers', name], message: 'must not contain line breaks' });
      }
    })
    .optional(),
  basic_auth_users: z
    .record(
      z
        .string()
        .min(1, 'a user name must not be empty')
        .regex(/^[^:]*$/, 'a user name must not contain ":"'),
      // Never echo the value: it is a hash, but of a password.
      z.string().refine((h) => BCRYPT.test(h), { message: 'is not a bcrypt hash (htpasswd -nBC 10 "" | tr -d \':\\n\')' }),
    )
    .optional(),
  // exporter-toolkit's: one bucket for all requests, a token per interval, up to burst.
  rate_limit: z
    .strictObject({
      interval: z
        .string()
        .refine((d) => parseDuration(d) !== undefined, { message: 'must be a duration such as 1s or 100ms' })
        .default('0s'),
      burst: z.number().int().min(0).default(0),
    })
    .superRefine((r, ctx) => {
      if ((parseDuration(r.interval) ?? 0) > 0 && r.burst < 1)
        ctx.addIssue({ code: 'custom', path: ['burst'], message: 'must be at least 1 when interval is set' });
    })
    .optional(),
});

export interface TlsSettings {
  certFile?: string;
  keyFile?: string;
  cert?: string;
  key?: string;
  clientCaFile?: string;
  clientCa?: string;
  clientAuth: ClientAuthType;
  clientAllowedSans?: string[];
  /** OpenSSL names, `:`-joined, or undefined for Node's defaults. */
  ciphers?: string;
  ecdhCurve?: string;
  minVersion: (typeof TLS_VERSIONS)[keyof typeof TLS_VERSIONS];
  maxVersion: (typeof TLS_VERSIONS)[keyof typeof TLS_VERSIONS];
  honorCipherOrder: boolean;
}

export interface WebConfig {
  tls?: TlsSettings;
  /** Response headers set on every answer (HSTS and the like). */
  headers: Readonly<Record<string, string>>;
  /** User name → bcrypt hash; empty means no basic auth. */
  users: ReadonlyMap<string, string>;
  rateLimit?: RateLimitSettings;
}

export const NO_WEB_CONFIG: WebConfig = { headers: {}, users: new Map() };

/** Parses web config text; relative file paths are taken from `dir` (the file's directory), as exporter-toolkit does. */
export function parseWebConfig(text: string, source: string, dir: string): WebConfig {
  const raw = yamlMapping(text, source);
  const res = webConfigSchema.safeParse(raw, { reportInput: true });
  if (!res.success) throw new ConfigError(res.error.issues.flatMap(describeIssue).map((p) => `${source}: ${p}`));
  const c = res.data;
  const path = (p: string | undefined) => (p === undefined ? undefined : isAbsolute(p) ? p : join(dir, p));
  const t = c.tls_server_config;
  const tls: TlsSettings | undefined = t && {
    ...(t.cert_file ? { certFile: path(t.cert_file) } : { cert: t.cert }),
    ...(t.key_file ? { keyFile: path(t.key_file) } : { key: t.key }),
    ...(t.client_ca_file ? { clientCaFile: path(t.client_ca_file) } : t.client_ca ? { clientCa: t.client_ca } : {}),
    clientAuth: t.client_auth_type === 'RequireClientCert' ? 'RequireAnyClientCert' : t.client_auth_type,
    ...(t.client_allowed_sans ? { clientAllowedSans: t.client_allowed_sans } : {}),
    ...(t.cipher_suites?.length ? { ciphers: t.cipher_suites.map((s) => CIPHER_SUITES[s]).join(':') } : {}),
    ...(t.curve_preferences?.length ? { ecdhCurve: t.curve_preferences.map((s) => CURVES[s]).join(':') } : {}),
    minVersion: TLS_VERSIONS[t.min_version],
    maxVersion: TLS_VERSIONS[t.max_version],
    honorCipherOrder: t.prefer_server_cipher_suites,
  };
  const rate = c.rate_limit && { intervalMs: parseDuration(c.rate_limit.interval) ?? 0, burst: c.rate_limit.burst };
  return {
    ...(tls ? { tls } : {}),
    headers: c.http_server_config?.headers ?? {},
    users: new Map(Object.entries(c.basic_auth_users ?? {})),
    ...(rate && rate.intervalMs > 0 ? { rateLimit: rate } : {}),
  };
}

export async function loadWebConfig(path: string): Promise<WebConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new ConfigError([`${path}: cannot read web config file (${(e as NodeJS.ErrnoException).code ?? 'error'})`]);
  }
  return parseWebConfig(text, path, dirname(path));
}
