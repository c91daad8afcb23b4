import { z } from 'zod';
import { duration, readableFile } from './fields.js';

/** `postgres://USER@HOST:PORT/DB`: the password never goes in the URL (it would be logged), only in password_file. */
const postgresUrl = z.string().transform((s, ctx) => {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    // Not echoed: a malformed URL may still hold a password.
    ctx.addIssue({ code: 'custom', message: 'invalid URL (use postgres://USER@HOST:PORT/DATABASE)' });
    return z.NEVER;
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    ctx.addIssue({ code: 'custom', message: 'scheme must be postgres:// (postgres://USER@HOST:PORT/DATABASE)' });
    return z.NEVER;
  }
  if (u.password) {
    ctx.addIssue({ code: 'custom', message: 'the password does not belong in the URL; use password_file' });
    return z.NEVER;
  }
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  const user = decodeURIComponent(u.username);
  if (!u.hostname || !user || !database || database.includes('/')) {
    ctx.addIssue({ code: 'custom', message: 'must name a user, a host and a database: postgres://USER@HOST:PORT/DATABASE' });
    return z.NEVER;
  }
  if (u.search || u.hash) {
    ctx.addIssue({ code: 'custom', message: 'query parameters are not read; use the tls, pool_size and statement_timeout keys' });
    return z.NEVER;
  }
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port ? Number(u.port) : 5432,
    user,
    database,
    display: `postgres://${u.username}@${u.host}/${u.pathname.slice(1)}`,
  };
});

/** The PostgreSQL form of alert_sink.store (see docs/alert-sink.md, "Running several replicas"). */
export const postgresStore = z
  .strictObject({
    url: postgresUrl,
    /** Read at each new connection (trimmed), so a rotated password applies without a reload. */
    password_file: readableFile.optional(),
    tls: z
      .strictObject({
        /** disable: plain TCP; require: encrypted, server not verified; verify-full: certificate and host name checked. */
        mode: z.enum(['disable', 'require', 'verify-full']).default('verify-full'),
        /** CA bundle for verify-full (the system's CAs when absent). */
        ca_file: readableFile.optional(),
      })
      .prefault({}),
    pool_size: z.number().int().min(1).max(200).default(10),
    /** A statement running longer is cancelled and the webhook answers 503: the sender retries. */
    statement_timeout: duration('5s'),
    connect_timeout: duration('5s'),
  })
  .superRefine((p, ctx) => {
    if (p.tls.ca_file && p.tls.mode !== 'verify-full') ctx.addIssue({ code: 'custom', path: ['tls', 'ca_file'], message: 'only used with mode: verify-full' });
  });
