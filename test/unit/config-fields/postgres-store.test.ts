import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { configProblems } from '../../helpers/failures.js';
import { tempDir } from '../../helpers/temp-dir.js';

const dir = tempDir('vigil-pgconfig-');
const passwordFile = join(dir, 'pg-password');
writeFileSync(passwordFile, 'hunter2-secret\n');

const pg = (inner: string) => `alert_sink:\n  store:\n    postgres: { ${inner} }\n`;

describe('alert_sink.store: an SQLite file or a PostgreSQL database', () => {
  it('reads the PostgreSQL form with its defaults, ${VAR} expanded, the password left in its file', () => {
    const c = parseConfig(
      `alert_sink:\n  store:\n    postgres: { url: "postgres://vigil@\${PGHOST}:5433/alerts", password_file: ${passwordFile}, tls: { mode: require } }\n    retention: 7d\n`,
      'test.yml',
      { PGHOST: 'db.internal' },
    );
    expect(c.alert_sink?.store).toEqual({
      retention: 7 * 86_400_000,
      prune_interval: 3_600_000,
      postgres: {
        url: { host: 'db.internal', port: 5433, user: 'vigil', database: 'alerts', display: 'postgres://vigil@db.internal:5433/alerts' },
        password_file: passwordFile,
        tls: { mode: 'require' },
        pool_size: 10,
        statement_timeout: 5000,
        connect_timeout: 5000,
      },
    });
    expect(JSON.stringify(c)).not.toContain('hunter2');
  });

  it('keeps the SQLite default when store is absent', () => {
    expect(parseConfig('alert_sink: {}\n', 'test.yml').alert_sink?.store).toMatchObject({ path: '/var/lib/vigil/alerts.db' });
  });

  it.each([
    [
      'both path and postgres',
      `alert_sink:\n  store: { path: /x.db, postgres: { url: "postgres://u@h/d" } }\n`,
      'alert_sink.store.postgres: set either path (SQLite) or postgres, not both',
    ],
    ['neither path nor postgres', 'alert_sink:\n  store: { retention: 7d }\n', 'alert_sink.store: set path (an SQLite file) or postgres'],
    [
      'max_size on PostgreSQL',
      `alert_sink:\n  store: { max_size: 1GiB, postgres: { url: "postgres://u@h/d" } }\n`,
      'alert_sink.store.max_size: only for an SQLite store',
    ],
    ['another scheme', pg('url: "mysql://u@h/d"'), 'alert_sink.store.postgres.url: scheme must be postgres://'],
    ['no database', pg('url: "postgres://u@h"'), 'alert_sink.store.postgres.url: must name a user, a host and a database'],
    ['query parameters', pg('url: "postgres://u@h/d?sslmode=disable"'), 'alert_sink.store.postgres.url: query parameters are not read'],
    ['a bad TLS mode', pg('url: "postgres://u@h/d", tls: { mode: prefer }'), 'alert_sink.store.postgres.tls.mode:'],
    [
      'a CA without verification',
      pg(`url: "postgres://u@h/d", tls: { mode: require, ca_file: ${passwordFile} }`),
      'alert_sink.store.postgres.tls.ca_file: only used with mode: verify-full',
    ],
    [
      'a missing password file',
      pg('url: "postgres://u@h/d", password_file: /nonexistent/pw'),
      'alert_sink.store.postgres.password_file: cannot read file "/nonexistent/pw" (ENOENT)',
    ],
    [
      'a bad statement_timeout',
      pg('url: "postgres://u@h/d", statement_timeout: forever'),
      'alert_sink.store.postgres.statement_timeout: invalid duration "forever"',
    ],
    ['a pool of 0', pg('url: "postgres://u@h/d", pool_size: 0'), 'alert_sink.store.postgres.pool_size:'],
  ])('%s names the key', (_what, yaml, expected) => {
    expect(configProblems(yaml).join('\n')).toContain(expected);
  });

  it('refuses a password in the URL without repeating it', () => {
    const problems = configProblems(pg('url: "postgres://vigil:hunter2-secret@h/d"')).join('\n');
    expect(problems).toContain('alert_sink.store.postgres.url: the password does not belong in the URL; use password_file');
    expect(problems).not.toContain('hunter2');
    const malformed = configProblems(pg('url: "postgres://vigil:hunter2-secret@[bad/d"')).join('\n');
    expect(malformed).toContain('alert_sink.store.postgres.url: invalid URL');
    expect(malformed).not.toContain('hunter2');
  });
});
