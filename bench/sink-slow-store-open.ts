/**
 * A slow store disk against the collectors: vigil starts on an SQLite alert store of `--mb` MB
 * (77 by default) whose every read waits `--delay-us` µs (2000), so opening it (quick_check reads
 * each page) takes long. It says when the first target series reached /metrics, what the webhook
 * and /readyz answered then, and when the sink said `alert sink ready`.
 *
 *   npm run build && node --import tsx bench/sink-slow-store-open.ts [--old=/path/to/other/checkout] [--mb=77] [--delay-us=2000]
 *
 * vigil runs built (`dist/main.js`) in a child process on 127.0.0.1, against the secrets simulator.
 * The slow disk is a small preload library (compiled here with gcc) that delays `pread64` on the
 * store's files only. `--old` names another checkout, built, run the same way after this one.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSecretsScenario, startSecretsSimulator } from '../simulators/secrets/index.js';
import { parsePayload } from '../src/sink/payload-schema.js';
import { notificationKey } from '../src/sink/store/alert-store.js';
import { SqliteAlertStore } from '../src/sink/store/sqlite-store.js';
import { notification } from '../test/helpers/alertmanager.js';

const opt = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const MB = Number(opt('mb') ?? 77);
const DELAY_US = Number(opt('delay-us') ?? 2000);
const TIMEOUT_MS = 600_000;
const HERE = resolve(fileURLToPath(new URL('..', import.meta.url)));

const SLOW_READ_C = `
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static ssize_t (*real)(int, void *, size_t, off_t);
ssize_t pread64(int fd, void *buf, size_t n, off_t off) {
  if (!real) real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
  const char *slow = getenv("SLOW_PATH");
  char link[64], target[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t len = slow ? readlink(link, target, sizeof target - 1) : -1;
  if (len > 0) {
    target[len] = 0;
    if (strstr(target, slow)) {
      long us = atol(getenv("SLOW_US") ? getenv("SLOW_US") : "2000");
      struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
      nanosleep(&ts, NULL);
    }
  }
  return real(fd, buf, n, off);
}
`;

/** The preload library that makes reads of files under SLOW_PATH slow. */
function slowReadLibrary(dir: string): string {
  writeFileSync(join(dir, 'slow-read.c'), SLOW_READ_C);
  execFileSync('gcc', ['-shared', '-fPIC', '-O2', '-o', join(dir, 'slow-read.so'), join(dir, 'slow-read.c'), '-ldl']);
  return join(dir, 'slow-read.so');
}

/** An alert store of about `mb` MB: notifications of 4 MB each. */
async function bigStore(path: string, mb: number): Promise<void> {
  const store = new SqliteAlertStore({ path });
  for (let i = 0; i < Math.ceil(mb / 4); i++) {
    const body = JSON.stringify({ ...notification({ groupKey: `g${i}`, alerts: [{ fingerprint: `f${i}` }] }), padding: 'x'.repeat(4_000_000) });
    const parsed = parsePayload(body);
    if (!parsed.ok) throw new Error(parsed.error);
    await store.record({ key: notificationKey(parsed.payload), receivedAt: Date.now(), payload: parsed.payload, body });
  }
  await store.close();
}

interface Run {
  first_target_series_s: number;
  webhook_then: number;
  readyz_then: string;
  alert_sink_ready_s: number;
}

/** Starts `root`'s built vigil on the slow store and watches it until its sink is ready. */
async function run(root: string, config: string, storeDir: string, library: string): Promise<Run> {
  const started = performance.now();
  const since = () => Math.round((performance.now() - started) / 100) / 10;
  const child = spawn(process.execPath, [join(root, 'dist/main.js'), `--config.file=${config}`, '--web.listen-address=127.0.0.1:0', '--log.format=json'], {
    cwd: root,
    env: { ...process.env, LD_PRELOAD: library, SLOW_PATH: storeDir, SLOW_US: String(DELAY_US) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let sinkReady = NaN;
  const read = (c: Buffer) => {
    out += c.toString();
    if (Number.isNaN(sinkReady) && out.includes('"msg":"alert sink ready"')) sinkReady = since();
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    let url = '';
    while (!url) {
      if (performance.now() - started > TIMEOUT_MS || child.exitCode !== null) throw new Error(`vigil did not listen:\n${out}`);
      url = (JSON.parse(out.split('\n').find((l) => l.includes('"msg":"vigil listening"')) ?? '{}') as { url?: string }).url ?? '';
      await sleep(20);
    }
    let first: Omit<Run, 'alert_sink_ready_s'> | undefined;
    while (!first || Number.isNaN(sinkReady)) {
      if (performance.now() - started > TIMEOUT_MS) throw new Error(`timed out:\n${out.slice(-2000)}`);
      if (!first && /^secrets_replication_up\{/m.test(await (await fetch(`${url}/metrics`)).text())) {
        const at = since();
        const hook = await fetch(`${url}/webhook/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        const ready = await fetch(`${url}/readyz`);
        first = { first_target_series_s: at, webhook_then: hook.status, readyz_then: `${ready.status} ${await ready.text()}` };
      }
      await sleep(50);
    }
    return { ...first, alert_sink_ready_s: sinkReady };
  } finally {
    child.kill('SIGKILL');
  }
}

const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-slow-open-'));
const library = slowReadLibrary(dir);
const storeDir = join(dir, 'store');
execFileSync('mkdir', [storeDir]);
await bigStore(join(storeDir, 'alerts.db'), MB);
const sim = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 });
const config = join(dir, 'vigil.yml');
writeFileSync(
  config,
  `secrets:\n  - name: primary\n    address: ${sim.cluster('dr-primary').url}\nalert_sink:\n  store: { path: ${join(storeDir, 'alerts.db')} }\n`,
);
try {
  const old = opt('old');
  for (const [name, root] of [['this', HERE], ...(old ? [['old', resolve(old)]] : [])] as const) {
    console.log(JSON.stringify({ vigil: name, store_mb: MB, read_delay_us: DELAY_US, ...(await run(root, config, storeDir, library)) }));
  }
} finally {
  await sim.close();
}
