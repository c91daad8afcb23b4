import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretsState } from '../../../../src/collectors/secrets/derived-state.js';
import { NodeClients, nodeTlsGroup } from '../../../../src/collectors/secrets/node-clients.js';
import { secretsTarget } from '../../../../src/collectors/secrets/target.js';
import { publishUpstreamStats, type BuildContext } from '../../../../src/jobs/context.js';
import { jobContext } from '../../../../src/jobs/job-context.js';
import type { Offload } from '../../../../src/offload/pool.js';
import { makeCa, makeCert, removeCas } from '../../../helpers/certs.js';
import { parseExposition } from '../../../helpers/exposition.js';

/**
 * Each node's own certificate, read by the node's own pool: two nodes on 127.0.0.1 with certificates
 * of their own, published under the target's upstream key, and dropped when a node leaves.
 */
const ca = makeCa('nodes');
const servers: https.Server[] = [];
const nodes: string[] = [];

beforeAll(async () => {
  for (const name of ['node-a', 'node-b']) {
    const files = makeCert(ca, name, 'server');
    certFiles.push(files.cert);
    const s = https.createServer({ cert: readFileSync(files.cert), key: readFileSync(files.key) }, (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    servers.push(s);
    nodes.push(`https://127.0.0.1:${(s.address() as AddressInfo).port}`);
  }
});
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  removeCas(ca);
});

/** A context whose store keeps the last text of each group. */
function recordingContext(): { ctx: BuildContext; text: () => string } {
  const groups = new Map<string, string>();
  const ctx = jobContext(undefined as unknown as Offload);
  ctx.store = { ...ctx.store, replace: (key, g) => void groups.set(key, [...g.values()].join('')), replaceLater: () => undefined };
  return { ctx, text: () => [...groups.values()].join('') };
}

/** What openssl's certificate says of itself, as vigil labels it. */
const idOf = (file: string) => new X509Certificate(readFileSync(file)).fingerprint256.replace(/:/g, '').slice(0, 16).toLowerCase();
const certFiles: string[] = [];

describe("each node's own certificate", () => {
  it('is published per address under the target, and dropped when the node leaves', async () => {
    const { ctx, text } = recordingContext();
    const t = secretsTarget.parse({ name: 'c', address: 'https://127.0.0.1:1', tls: { ca_file: ca.cert } });
    const clients = new NodeClients(t, ctx);
    try {
      for (const n of nodes) await clients.client(n).json({ endpoint: 'secrets/node_health', path: '/v1/sys/health' });
      publishUpstreamStats(ctx, 'c');
      const expiry = (m: Map<string, number>) => [...m].filter(([k]) => k.startsWith('vigil_upstream_node_tls_earliest_cert_expiry_timestamp_seconds{'));
      const both = expiry(parseExposition(text()));
      expect(both.map(([k]) => k.match(/address="([^"]+)"/)?.[1])).toEqual(nodes);
      const ids = both.map(([k]) => k.match(/certificate="([0-9a-f]{16})"/)?.[1]);
      expect(ids).toEqual(certFiles.map(idOf));
      expect(new Set(ids).size).toBe(2);
      expect(both.every(([, v]) => v > Date.now() / 1000)).toBe(true);

      clients.keepOnly([nodes[0]!]);
      publishUpstreamStats(ctx, 'c');
      const one = parseExposition(text());
      expect(expiry(one).map(([k]) => k.match(/address="([^"]+)"/)?.[1])).toEqual([nodes[0]]);
      expect([...one.keys()].filter((k) => k.startsWith('vigil_upstream_node_tls_verified{'))).toHaveLength(1);
    } finally {
      clients.keepOnly([]);
    }
  });

  it("is the health clients' to publish: the audited request's clients, which send the token, publish none", async () => {
    const { ctx, text } = recordingContext();
    const t = secretsTarget.parse({ name: 'c', address: 'https://127.0.0.1:1', tls: { ca_file: ca.cert } });
    const tokenClients = new NodeClients(t, ctx, () => true);
    try {
      for (const n of nodes) await tokenClients.client(n).json({ endpoint: 'secrets/node_audited_request', path: '/v1/auth/token/lookup-self' });
      publishUpstreamStats(ctx, 'c');
      expect([...parseExposition(text()).keys()].filter((k) => k.startsWith('vigil_upstream_node_tls_'))).toEqual([]);
      // And a node the token may not go to gets no client at all.
      expect(() => new NodeClients(t, ctx, () => false).client(nodes[0]!)).toThrow('vigil does not send its token to this node');
    } finally {
      tokenClients.keepOnly([]);
    }
  });

  it('is removed by a reload that stops polling the nodes, and kept by one that goes on', () => {
    const { ctx } = recordingContext();
    const removed: string[] = [];
    const store = { ...ctx.store, removePrefix: (p: string) => void removed.push(p) };
    const on = secretsTarget.parse({ name: 'on', address: 'https://127.0.0.1:1' });
    const off = secretsTarget.parse({ name: 'off', address: 'https://127.0.0.1:2', nodes: { enabled: false } });
    new SecretsState().settle([on, off], store);
    expect(removed).toEqual([nodeTlsGroup('off')]);
    expect(nodeTlsGroup('off').startsWith('vigil/upstream/secrets/off/')).toBe(true);
  });
});
