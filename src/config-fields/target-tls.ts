import { z } from 'zod';
import { KeyPairError, readKeyPairSync } from './key-pair.js';
import { readableFile, unreadable } from './readable-file.js';

/** Prometheus' spellings of the TLS versions vigil can be held to (Node speaks nothing older than 1.2). */
const TLS_VERSIONS = { TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;
export type TlsVersion = (typeof TLS_VERSIONS)[keyof typeof TLS_VERSIONS];

const minVersion = z.string().transform((s, ctx): TlsVersion => {
  const v = TLS_VERSIONS[s as keyof typeof TLS_VERSIONS];
  if (v) return v;
  ctx.addIssue({ code: 'custom', message: `"${s}" is not a TLS version vigil can require: use TLS12 or TLS13` });
  return z.NEVER;
});

/**
 * How vigil speaks TLS to an upstream target, named as in Prometheus' `tls_config`: the trust
 * (`ca_file`, `insecure_skip_verify`), the name to ask for and verify (`server_name`), the lowest
 * version (`min_version`) and a client certificate (`cert_file` with `key_file`, checked to belong
 * together at load and re-read when they change).
 */
export const targetTls = z
  .strictObject({
    ca_file: readableFile.optional(),
    cert_file: readableFile.optional(),
    key_file: readableFile.optional(),
    server_name: z.string().min(1).optional(),
    min_version: minVersion.optional(),
    insecure_skip_verify: z.boolean().default(false),
  })
  .superRefine((t, ctx) => {
    if (t.cert_file === undefined && t.key_file === undefined) return;
    if (t.cert_file === undefined)
      return ctx.addIssue({ code: 'custom', path: ['cert_file'], message: 'required with key_file (a client key without its certificate)' });
    if (t.key_file === undefined)
      return ctx.addIssue({ code: 'custom', path: ['key_file'], message: 'required with cert_file (a client certificate without its key)' });
    // An unreadable file is already reported by its own key.
    if (unreadable(t.cert_file) || unreadable(t.key_file)) return;
    try {
      readKeyPairSync(t.cert_file, t.key_file);
    } catch (e) {
      if (!(e instanceof KeyPairError)) throw e;
      ctx.addIssue({ code: 'custom', path: [e.key], message: e.message });
    }
  })
  .default({ insecure_skip_verify: false });

export type TargetTls = z.output<typeof targetTls>;
