import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate, type CertFiles } from '../helpers/certs.js';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { series, seriesOf } from '../helpers/exposition.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A secrets cluster of three simulated nodes over TLS: its address and two nodes serve one shared
 * certificate (a wildcard or SAN one), the third node its own, expiring within a day (both made with
 * openssl, trusted through one CA bundle). vigil reads each node's certificate at the node's own
 * address, labelled by address and by the leaf's fingerprint, beside the address's own.
 */
let sim: SecretsSimulator;
let vigil: TestDaemon;
let shared: CertFiles;
let own: CertFiles;

/** What openssl states of a certificate: its notAfter as Unix time, and its leaf's label. */
const notAfterOf = (c: CertFiles) =>
  Date.parse(
    execFileSync('openssl', ['x509', '-enddate', '-noout', '-in', c.cert], { encoding: 'utf8' })
      .trim()
      .replace(/^notAfter=/, ''),
  ) / 1000;
const idOf = (c: CertFiles) => new X509Certificate(readFileSync(c.cert)).fingerprint256.replace(/:/g, '').slice(0, 16).toLowerCase();
const serve = (c: CertFiles) => ({ cert: readFileSync(c.cert), key: readFileSync(c.key) });

beforeAll(async () => {
  shared = selfSignedCertificate(tempDir('vigil-node-certs-shared-'), 90);
  own = selfSignedCertificate(tempDir('vigil-node-certs-own-'), 1);
  const bundle = join(tempDir('vigil-node-certs-ca-'), 'ca.pem');
  writeFileSync(bundle, `${readFileSync(shared.cert, 'utf8')}${readFileSync(own.cert, 'utf8')}`);
  sim = await startSecretsSimulator(
    { clusters: [{ name: 'raft' }] },
    { walTickMs: 3_600_000, tls: serve(shared), nodeTls: (_cluster, node) => (node === 'node-3' ? serve(own) : undefined) },
  );
  const token = tempFile('root-token', sim.cluster('raft').rootToken);
  vigil = await startTestDaemon(
    `secrets:\n  - { name: raft, address: "${sim.cluster('raft').url}", token_file: "${token}", timeout: 2s, schedule: "${NEVER}", replication_kinds: [dr], tls: { ca_file: ${bundle} } }\n`,
  );
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
});

const url = (id: string) => sim.cluster('raft').nodes.get(id)!;
const nodeExpiry = (id: string, c: CertFiles) =>
  series('vigil_upstream_node_tls_earliest_cert_expiry_timestamp_seconds', { target: 'raft', address: url(id), certificate: idOf(c) });
const nodeVerified = (id: string, c: CertFiles) => series('vigil_upstream_node_tls_verified', { target: 'raft', address: url(id), certificate: idOf(c) });

describe("each node's own certificate", () => {
  it('serves the shared certificate at the address and two nodes, and its own at the third', () => {
    expect(idOf(shared)).not.toBe(idOf(own));
    expect(notAfterOf(own) - Date.now() / 1000).toBeLessThan(2 * 86_400);
    expect(notAfterOf(shared) - Date.now() / 1000).toBeGreaterThan(80 * 86_400);
  });

  it("is exported per node address, with the leaf's fingerprint and the chain's expiry openssl states", async () => {
    const m = await vigil.metrics();
    for (const id of ['node-1', 'node-2', 'node-3']) expect(m.get(series('secrets_node_up', { target: 'raft', node: id, address: url(id) }))).toBe(1);
    expect(m.get(nodeExpiry('node-1', shared))).toBe(notAfterOf(shared));
    expect(m.get(nodeExpiry('node-2', shared))).toBe(notAfterOf(shared));
    expect(m.get(nodeExpiry('node-3', own))).toBe(notAfterOf(own));
    for (const [id, c] of [
      ['node-1', shared],
      ['node-2', shared],
      ['node-3', own],
    ] as const)
      expect(m.get(nodeVerified(id, c))).toBe(1);
    expect(seriesOf(m, 'vigil_upstream_node_tls_earliest_cert_expiry_timestamp_seconds').size).toBe(3);
  });

  it("names the address's certificate with the same label as the nodes that share it", async () => {
    const m = await vigil.metrics();
    const address = series('vigil_upstream_tls_earliest_cert_expiry_timestamp_seconds', { target: 'raft', certificate: idOf(shared) });
    expect(m.get(address)).toBe(notAfterOf(shared));
    expect(seriesOf(m, 'vigil_upstream_tls_earliest_cert_expiry_timestamp_seconds').size).toBe(1);
  });

  it('keeps each node certificate across later polls on kept-alive or resumed connections', async () => {
    await vigil.collect();
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.get(nodeExpiry('node-3', own))).toBe(notAfterOf(own));
    expect(seriesOf(m, 'vigil_upstream_node_tls_earliest_cert_expiry_timestamp_seconds').size).toBe(3);
  });

  it('is dropped when its node leaves the cluster, and the others stay', async () => {
    const dispatcher = new Agent({ connect: { ca: readFileSync(shared.cert) } });
    try {
      const res = await fetch(`${sim.cluster('raft').url}/_sim/nodes/node-3`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ removed: true }),
        dispatcher,
      });
      expect(res.status).toBeLessThan(300);
    } finally {
      await dispatcher.close();
    }
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.has(series('secrets_node_up', { target: 'raft', node: 'node-3', address: url('node-3') }))).toBe(false);
    expect(m.has(nodeExpiry('node-3', own))).toBe(false);
    expect(m.has(nodeVerified('node-3', own))).toBe(false);
    expect(m.get(nodeExpiry('node-1', shared))).toBe(notAfterOf(shared));
    expect(seriesOf(m, 'vigil_upstream_node_tls_earliest_cert_expiry_timestamp_seconds').size).toBe(2);
  });
});
