import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { selfSignedCertificate } from '../helpers/certs.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { series } from '../helpers/exposition.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { NEVER } from '../helpers/schedules.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Targets behind a forward proxy that wants credentials: an https agent reached through a CONNECT
 * tunnel, a plain-http agent through absolute-form requests, one named by `no_proxy` that goes
 * directly, one that takes HTTP_PROXY from the environment, and one with a wrong password (the
 * proxy's 407, vigil's operator's to fix). The credentials reach the proxy and nothing else.
 */
const PASSWORD = 'pr0xy-s3cret';
const WRONG = 'wr0ng-s3cret';
let proxy: ForwardProxy;
let tlsAgents: AgentSimulator;
let agents: AgentSimulator;
let vigil: TestDaemon;
const savedProxy = process.env.HTTP_PROXY;

const authority = (url: string) => new URL(url).host;
const up = (target: string) => series('scheduler_agent_up', { target });

beforeAll(async () => {
  proxy = await startForwardProxy({ user: 'vigil', password: PASSWORD });
  const { cert, key } = selfSignedCertificate(tempDir('vigil-proxy-tls-'), 2);
  tlsAgents = await startAgentSimulator(
    { agents: [{ name: 'tls', role: 'server', members: 2 }] },
    { tls: { cert: readFileSync(cert), key: readFileSync(key) } },
  );
  agents = await startAgentSimulator({ agents: ['plain', 'direct', 'env', 'refused'].map((name) => ({ name, role: 'server' as const, members: 2 })) });
  const withAuth = (password: string) => proxy.url.replace('http://', `http://vigil:${password}@`);
  const t = (name: string, address: string, keys: string) => `  - name: ${name}\n    address: ${address}\n    schedule: "${NEVER}"\n    timeout: 2s\n${keys}`;
  process.env.HTTP_PROXY = withAuth(PASSWORD);
  vigil = await startTestDaemon(
    'agents:\n' +
      t('tls', tlsAgents.agent('tls').url, `    tls: { ca_file: ${cert} }\n    proxy_url: ${withAuth(PASSWORD)}\n`) +
      t('plain', agents.agent('plain').url, `    proxy_url: ${withAuth(PASSWORD)}\n`) +
      t('direct', agents.agent('direct').url, `    proxy_url: ${withAuth(PASSWORD)}\n    no_proxy: "${authority(agents.agent('direct').url)},.example.com"\n`) +
      t('env', agents.agent('env').url, '    proxy_from_environment: true\n') +
      t('refused', agents.agent('refused').url, `    proxy_url: ${withAuth(WRONG)}\n`),
    { settle: true },
  );
}, 60_000);

afterAll(async () => {
  if (savedProxy === undefined) delete process.env.HTTP_PROXY;
  else process.env.HTTP_PROXY = savedProxy;
  await vigil?.close();
  await Promise.all([tlsAgents?.close(), agents?.close(), proxy?.close()]);
});

describe('upstream targets behind a forward proxy', () => {
  it('reaches an https target through CONNECT tunnels, its TLS end to end', async () => {
    expect((await vigil.metrics()).get(up('tls'))).toBe(1);
    expect(proxy.tunnels.get(authority(tlsAgents.agent('tls').url))).toBeGreaterThan(0);
    expect(proxy.forwarded.has(authority(tlsAgents.agent('tls').url))).toBe(false);
  });

  it('reaches a plain-http target through forwarded requests', async () => {
    expect((await vigil.metrics()).get(up('plain'))).toBe(1);
    expect(proxy.forwarded.get(authority(agents.agent('plain').url))).toBeGreaterThan(0);
  });

  it('goes directly to a target no_proxy names', async () => {
    expect((await vigil.metrics()).get(up('direct'))).toBe(1);
    expect(proxy.forwarded.has(authority(agents.agent('direct').url))).toBe(false);
    expect(proxy.tunnels.has(authority(agents.agent('direct').url))).toBe(false);
  });

  it('takes HTTP_PROXY, credentials included, with proxy_from_environment', async () => {
    expect((await vigil.metrics()).get(up('env'))).toBe(1);
    expect(proxy.forwarded.get(authority(agents.agent('env').url))).toBeGreaterThan(0);
  });

  it('sends the credentials to the proxy', () => {
    expect(proxy.authorizations).toContain(`Basic ${Buffer.from(`vigil:${PASSWORD}`).toString('base64')}`);
    expect(proxy.authorizations).not.toContain(undefined);
  });

  it("fails a target the proxy refuses (407) with reason proxy, vigil's operator's, naming the proxy", async () => {
    const m = await vigil.metrics();
    expect(m.get(up('refused'))).toBe(0);
    expect(m.get(series('vigil_collector_failing', { collector: 'scheduler_agent', target: 'refused', reason: 'proxy' }))).toBe(1);
    expect(m.get(series('vigil_collector_proxy_failing', { collector: 'scheduler_agent', target: 'refused', proxy: proxy.url }))).toBe(1);
    expect(m.get(series('vigil_collector_proxy_failing', { collector: 'scheduler_agent', target: 'plain', proxy: proxy.url }))).toBeUndefined();
    const shown = `proxy ${proxy.url.replace('http://', 'http://vigil:xxxxx@')}/: HTTP 407: it refused vigil`;
    expect(vigil.logs().some((l) => l.target === 'refused' && String(l.err).includes(shown))).toBe(true);
  });

  it('never shows a proxy password, plain or encoded, in the logs or on /metrics', async () => {
    const shown = `${vigil.rawLogs()}\n${await vigil.scrape()}`;
    expect(shown).toContain('refused');
    for (const password of [PASSWORD, WRONG]) {
      expect(shown).not.toContain(password);
      expect(shown).not.toContain(Buffer.from(`vigil:${password}`).toString('base64'));
    }
  });
});
