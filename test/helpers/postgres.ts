import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './processes.js';
import { waitFor } from './wait.js';

/** Debian installs each major version under /usr/lib/postgresql/<major>; the newest is used. */
function newestBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((d) => /^\d+$/.test(d))
        .map(Number)
    : [];
  return join(root, String(majors.length ? Math.max(...majors) : 15), 'bin');
}
const BIN = newestBin();
const INSTALL = 'apt-get install postgresql';
export const APP_USER = 'vigil';
export const APP_PASSWORD = 'app-secret-Zq7';
const ADMIN_PASSWORD = 'admin-secret-Kp2';

/**
 * A real PostgreSQL 15 for tests: its own data directory in a temp dir, listening on a free
 * loopback port only (no Unix socket), password (SCRAM) authentication. As root, initdb and the
 * server run as the unprivileged `postgres` user (PostgreSQL refuses root). Stopped by PID.
 */
export interface TestPostgres {
  port: number;
  /** The application's URL (no password: it goes through password_file). */
  url: string;
  /** A file holding the application role's password. */
  passwordFile: string;
  dir: string;
  /** A connection as the application role. */
  client(): Promise<pg.Client>;
  /** A superuser query (to inspect or break things). */
  admin(sql: string, params?: unknown[]): Promise<pg.QueryResult>;
  /** Fast shutdown and wait (SIGINT to the postmaster). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes the data directory. */
  destroy(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as `postgres` when we are root (setpriv execs: the PID is the binary's). */
function command(binary: string, args: string[]): [string, string[]] {
  const path = join(BIN, binary);
  if (!existsSync(path)) throw new Error(`${path} not found: ${INSTALL}`);
  return asRoot ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', path, ...args]] : [path, args];
}

export async function startPostgres(): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'admin-password');
  writeFileSync(pwfile, ADMIN_PASSWORD);
  const passwordFile = join(dir, 'app-password');
  writeFileSync(passwordFile, `${APP_PASSWORD}\n`);
  if (asRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  const [initdb, initArgs] = command('initdb', ['-D', data, '-U', 'postgres', `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--no-sync']);
  const init = spawnSync(initdb, initArgs, { encoding: 'utf8', timeout: 120_000 });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stdout}${init.stderr}`);
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';

  const adminQuery = async (sql: string, params: unknown[] = [], database = 'postgres') => {
    const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: ADMIN_PASSWORD, database });
    await c.connect();
    try {
      return await c.query(sql, params);
    } finally {
      await c.end();
    }
  };

  const start = async () => {
    const [bin, args] = command('postgres', [
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
    ]);
    const c = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    c.stdout?.on('data', (b: Buffer) => (log += b.toString()));
    c.stderr?.on('data', (b: Buffer) => (log += b.toString()));
    const answers = await waitFor(
      'postgres to answer',
      () => (c.exitCode !== null ? Promise.resolve(false) : adminQuery('SELECT 1').then(() => true)),
      60_000,
      {
        describeFailure: () => `\n${log.slice(-2000)}`,
      },
    );
    if (!answers) throw new Error(`postgres exited: ${log.slice(-2000)}`);
  };

  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill('SIGINT');
    const t = setTimeout(() => c.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(t);
  };

  await start();
  await adminQuery(`CREATE ROLE ${APP_USER} LOGIN PASSWORD '${APP_PASSWORD}'`);
  await adminQuery(`CREATE DATABASE vigil OWNER ${APP_USER}`);
  // What docs/alert-sink.md asks of an operator: the role owns its schema, nothing else.
  await adminQuery(`REVOKE ALL ON SCHEMA public FROM PUBLIC; CREATE SCHEMA vigil AUTHORIZATION ${APP_USER}`, [], 'vigil');
  await adminQuery(`ALTER ROLE ${APP_USER} SET search_path = vigil`);

  return {
    port,
    url: `postgres://${APP_USER}@127.0.0.1:${port}/vigil`,
    passwordFile,
    dir,
    client: async () => {
      const c = new pg.Client({ host: '127.0.0.1', port, user: APP_USER, password: APP_PASSWORD, database: 'vigil' });
      await c.connect();
      return c;
    },
    admin: (sql, params) => adminQuery(sql, params, 'vigil'),
    stop,
    start,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
