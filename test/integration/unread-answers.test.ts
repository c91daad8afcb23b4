import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog.js';
import { SnapshotStore } from '../../src/metrics/snapshot-store.js';
import { createApp } from '../../src/server.js';
import { DEFAULT_LIMITS, listen, type RunningHttp, type ServerLimits } from '../../src/server/http-server.js';
import { HttpTelemetry } from '../../src/server/telemetry.js';
import { parseWebConfig, type TlsSettings } from '../../src/server/web-config.js';
import { selfSignedCertificate } from '../helpers/certs.js';
import { tempDir } from '../helpers/temp-dir.js';
import { appDeps } from '../helpers/app-deps.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Clients that ask for a large /metrics and never read it. The body must be larger than what the
 * kernel's socket buffers take on loopback (a few MB each way), or the answer would simply sit there.
 */
const BODY_BYTES = 12 * 1024 * 1024;
const LINE = 'vigil_test_padding{i="0000000"} 1\n';
const body = LINE.repeat(Math.ceil(BODY_BYTES / LINE.length));

let server: RunningHttp | undefined;
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = undefined;
});

async function start(limits: Partial<ServerLimits>, tls?: TlsSettings): Promise<{ port: number; url: string; store: SnapshotStore }> {
  const store = new SnapshotStore(CATALOG);
  const app = createApp(appDeps({ processMetrics: () => Promise.resolve(body) }));
  const telemetry = new HttpTelemetry(store);
  server = await listen(app, '127.0.0.1:0', { limits: { ...DEFAULT_LIMITS, ...limits }, telemetry, ...(tls ? { tls } : {}) });
  return { port: Number(new URL(server.url).port), url: server.url, store };
}

/**
 * Asks for /metrics and never reads a byte of the answer; resolves when the request is sent. (It
 * never sees the server close either: the end of a stream comes after data nobody reads.)
 */
function neverReads(port: number, secure = false): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = secure ? tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }) : net.connect(port, '127.0.0.1');
    sockets.push(socket);
    socket.pause();
    socket.on('error', () => undefined);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
      resolve();
    });
    socket.once('error', reject);
  });
}

/** Reads the answer a little at a time (64 KiB every 50 ms, about 1.3 MB/s); what it received in all. */
function readsSlowly(port: number): Promise<{ bytes: number; head: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    sockets.push(socket);
    socket.pause();
    let bytes = 0;
    let head = '';
    socket.on('error', () => undefined);
    socket.once('connect', () => socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    const t = setInterval(() => {
      for (let c = socket.read(); c !== null; c = socket.read()) {
        const chunk = c as Buffer;
        if (head.length < 512) head += chunk.subarray(0, 512).toString('latin1');
        bytes += chunk.length;
        if (bytes >= 64 * 1024) break;
      }
    }, 50);
    socket.once('close', () => {
      clearInterval(t);
      resolve({ bytes, head });
    });
  });
}

const stalledCount = async (store: SnapshotStore): Promise<number | undefined> => {
  const text = Buffer.concat(store.snapshot().buffers()).toString();
  const m = /^vigil_http_write_stalled_total (\d+)$/m.exec(text);
  return m ? Number(m[1]) : undefined;
};

describe('clients that do not read their answer', () => {
  it('a scrape still gets in while --web.max-connections clients sit on a large /metrics they never read', async () => {
    // A write timeout far away: making room for the scrape is the cap's doing.
    const { port, url, store } = await start({ maxConnections: 10, writeTimeoutMs: 600_000 });
    let answering = 0;
    server!.server.on('request', () => answering++);
    for (let i = 0; i < 10; i++) await neverReads(port);
    // Every connection busy with its answer, so that none is idle: closing an idle one would make room too.
    await waitFor('the ten requests being answered', async () => (answering === 10 ? true : undefined), 10_000, { everyMs: 20 });
    // At the cap, a newcomer gets in by cutting an answer that has stood still for a second; until the
    // answers have filled the socket buffers and stood that long, a scrape is turned away, and tries again.
    // Each try bounded, as a scraper's is (scrape_timeout): node's own fetch, which this process uses
    // since vigil loads undici in its collection thread only, once waited on one try past the test's time.
    const res = await waitFor('a scrape let in at the cap', async () => {
      const r = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(3000) });
      return r.status === 200 ? r : undefined;
    });
    expect((await res.text()).startsWith(body)).toBe(true);
    // One stuck connection made room (the scrape's own connection, once done, is idle: never a stalled one's).
    expect(await waitFor('the count of stalled writes', async () => ((await stalledCount(store)) === 1 ? 1 : undefined), 10_000)).toBe(1);
  }, 60_000);

  it('cuts an answer that makes no progress for --web.write-timeout, and counts it', async () => {
    const { port, store } = await start({ writeTimeoutMs: 1000 });
    await neverReads(port);
    expect(await waitFor('the count of stalled writes', async () => ((await stalledCount(store)) === 1 ? 1 : undefined), 10_000)).toBe(1);
  }, 60_000);

  it('cuts it over TLS too', async () => {
    const { cert, key } = selfSignedCertificate(tempDir('vigil-unread-'), 1);
    const web = parseWebConfig(`tls_server_config:\n  cert_file: ${cert}\n  key_file: ${key}\n`, 'web.yml', '/');
    const { port, store } = await start({ writeTimeoutMs: 1000 }, web.tls);
    await neverReads(port, true);
    expect(await waitFor('the count of stalled writes', async () => ((await stalledCount(store)) === 1 ? 1 : undefined), 10_000)).toBe(1);
  }, 60_000);

  it('keeps a slow reader that keeps reading, however long the whole answer takes', async () => {
    // The kernel takes a slow reader's answer in bursts (when a third of its send buffer, up to
    // 4 MB, has been read), so the timeout must outlast a burst at the reader's pace: here about 1 s.
    const { port, store } = await start({ writeTimeoutMs: 3000 });
    const got = await readsSlowly(port);
    const length = Number(/content-length: (\d+)/i.exec(got.head)?.[1]);
    expect(length).toBeGreaterThan(BODY_BYTES);
    expect(got.bytes).toBe(got.head.indexOf('\r\n\r\n') + 4 + length);
    expect(await stalledCount(store)).toBe(0);
  }, 60_000);
});
