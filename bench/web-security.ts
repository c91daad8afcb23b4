/**
 * What TLS and basic auth cost a scrape: vigil from dist/ three times (plain HTTP; basic auth;
 * TLS with basic auth), each scraped by wrk in turns, twice round, the best of each kept. Reported
 * as ratios to plain HTTP measured in the same run. /metrics here is vigil's own series only (a
 * small body), the worst case for a per-request cost.
 *
 * Then what wrong passwords cost everyone else: with TLS and basic auth, a new connection's
 * handshake (median, p99) idle and while 32 clients send 16 wrong passwords a second, and how the
 * guesses were answered. BENCH_BEFORE=<another checkout, built> measures that one too, in the
 * same run, for a before and after.
 *
 *   npm run bench:web-security
 *   BENCH_BEFORE=/path/to/checkout/of/main npm run bench:web-security
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { makeCa, makeCert } from '../test/helpers/certs.js';
import { request } from '../test/helpers/secured-vigil.js';
import { Children, freePort, type Child } from './scale/children.js';
import { machine, printTable, writeResult, type Row } from './scale/report.js';
import { load } from './scale/wrk.js';
import { flood, handshakes } from './handshakes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const BEFORE = process.env.BENCH_BEFORE;
const FLOOD = { clients: 32, perSecond: 16 };
const PASSWORD = 'bench-password';
const children = new Children();
const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-websec-'));
const ca = makeCa('bench');
const cert = makeCert(ca, '127.0.0.1', 'server', 'server');
const users = `basic_auth_users:\n  prometheus: ${bcrypt.hashSync(PASSWORD, 10)}\n`;
const variants = {
  plain: undefined,
  basic_auth: users,
  tls_basic_auth: `tls_server_config:\n  cert_file: ${cert.cert}\n  key_file: ${cert.key}\n${users}`,
} as const;
const auth = `Authorization: Basic ${Buffer.from(`prometheus:${PASSWORD}`).toString('base64')}`;

async function start(name: keyof typeof variants, root = ROOT): Promise<{ url: string; pid: number; child: Child }> {
  writeFileSync(join(dir, 'vigil.yml'), '{}\n');
  const port = await freePort();
  const args = ['dist/main.js', `--config.file=${join(dir, 'vigil.yml')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'];
  const web = variants[name];
  if (web) {
    writeFileSync(join(dir, `${name}.yml`), web);
    args.push(`--web.config.file=${join(dir, `${name}.yml`)}`);
  }
  const child = children.start(name, process.execPath, args, { cwd: root });
  const url = `${web?.includes('tls_server_config') ? 'https' : 'http'}://127.0.0.1:${port}/metrics`;
  for (let i = 0; ; i++) {
    const ok = await fetchOk(url, web !== undefined);
    if (ok) break;
    if (i > 200) throw new Error(`${name} did not answer:\n${child.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, pid: child.pid, child };
}

/** One request (trusting the bench CA), which also fills the credential cache. */
async function fetchOk(url: string, withAuth: boolean): Promise<boolean> {
  const headers: Record<string, string> = withAuth ? { authorization: auth.slice('Authorization: '.length) } : {};
  return request(url, { headers, tls: { ca: readFileSync(ca.cert) } }).then(
    (r) => r.status === 200,
    () => false,
  );
}

/** Handshakes idle, then during a wrong-password flood, against the vigil of `root`. */
async function handshakeRows(version: string, root: string): Promise<Row[]> {
  const s = await start('tls_basic_auth', root);
  const port = Number(new URL(s.url).port);
  const cert = readFileSync(ca.cert);
  const idle = await handshakes(port, cert, SECONDS * 1000);
  const guessing = flood(s.url, cert, FLOOD.clients, FLOOD.perSecond);
  await new Promise((r) => setTimeout(r, 2000));
  const during = await handshakes(port, cert, SECONDS * 1000);
  const statuses = await guessing.stop();
  await children.stop(s.child);
  const answers = [...statuses].map(([status, n]) => `${status}: ${n}`).join(', ');
  return [
    { version, phase: 'idle', 'handshake median ms': idle.median, 'p99 ms': idle.p99, handshakes: idle.n },
    {
      version,
      phase: 'flood',
      'handshake median ms': during.median,
      'p99 ms': during.p99,
      handshakes: during.n,
      'x idle median': Math.round((during.median / idle.median) * 10) / 10,
      guesses: answers,
    },
  ];
}

async function main(): Promise<void> {
  const servers = {} as Record<keyof typeof variants, { url: string; pid: number }>;
  for (const name of Object.keys(variants) as Array<keyof typeof variants>) servers[name] = await start(name);
  const best = new Map<string, Row>();
  for (let round = 0; round < 2; round++) {
    for (const [name, s] of Object.entries(servers)) {
      const r = await load(children, { url: s.url, connections: 8, seconds: SECONDS, gzip: false, serverPid: s.pid, headers: name === 'plain' ? [] : [auth] });
      const prev = best.get(name);
      if (!prev || Number(prev['req/s']) < r.requests_per_second) {
        best.set(name, { variant: name, 'req/s': r.requests_per_second, 'p99 ms': r.p99_ms, 'CPU ms/req': r.cpu_ms_per_request });
      }
    }
  }
  const plain = Number(best.get('plain')!['req/s']);
  const rows = [...best.values()].map((r) => ({ ...r, 'ratio to plain': Math.round((Number(r['req/s']) / plain) * 100) / 100 }));
  printTable(`/metrics with TLS and basic auth, ${SECONDS} s per run, best of 2 (wrk -c8)`, rows);
  writeResult(join(ROOT, 'bench/results'), 'web-security', { machine: machine(), seconds: SECONDS }, rows);
  await children.stopAll();
  const handshakeRowsAll = [...(BEFORE ? await handshakeRows('before', BEFORE) : []), ...(await handshakeRows('this', ROOT))];
  const title = `TLS handshakes of new connections, idle and during ${FLOOD.clients} clients' ${FLOOD.perSecond} wrong passwords/s, ${SECONDS} s each`;
  printTable(title, handshakeRowsAll);
  writeResult(join(ROOT, 'bench/results'), 'web-security-handshakes', { machine: machine(), seconds: SECONDS, flood: FLOOD }, handshakeRowsAll);
}

main()
  .catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await children.stopAll();
    rmSync(dir, { recursive: true, force: true });
    rmSync(ca.dir, { recursive: true, force: true });
  });
