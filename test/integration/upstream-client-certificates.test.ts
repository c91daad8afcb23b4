import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { makeCa, makeCert, removeCas, type Ca, type CertFiles } from '../helpers/certs.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { series } from '../helpers/exposition.js';
import { runSilentRulesTest } from '../helpers/rules-on-scrape.js';
import { NEVER } from '../helpers/schedules.js';

/**
 * An agent that verifies HTTPS clients (`verify_https_client`): the simulator requires a client
 * certificate from the cluster's CA. Polled with one, vigil reads the agent; without one, or with
 * one from another CA, the target is down with reason `tls`, which is vigil's operator's to fix (a
 * `VigilCollectorFailing` warning), never `SchedulerAgentDown`; a renewed pair written over the
 * files is presented on the next connection, without a reload.
 */
let cluster: Ca;
let rotating: CertFiles;
let good: CertFiles;
let stranger: Ca | undefined;
let sim: AgentSimulator;
let vigil: TestDaemon;

const up = (target: string) => series('scheduler_agent_up', { target });
const failing = (target: string, reason: string) => series('vigil_collector_failing', { collector: 'scheduler_agent', target, reason });

beforeAll(async () => {
  cluster = makeCa('cluster');
  stranger = makeCa('stranger');
  const server = makeCert(cluster, 'server', 'server');
  good = makeCert(cluster, 'vigil', 'client');
  const foreign = makeCert(stranger, 'vigil', 'client');
  // The rotating target starts with the foreign pair, in files of its own.
  rotating = { cert: join(cluster.dir, 'rotating.pem'), key: join(cluster.dir, 'rotating.key') };
  copyFileSync(foreign.cert, rotating.cert);
  copyFileSync(foreign.key, rotating.key);
  sim = await startAgentSimulator(
    { agents: [{ name: 'server-1', role: 'server', members: 3 }] },
    { tls: { cert: readFileSync(server.cert), key: readFileSync(server.key), clientCa: readFileSync(cluster.cert) } },
  );
  const url = sim.agent('server-1').url;
  const t = (name: string, pair?: CertFiles) =>
    `  - name: ${name}\n    address: ${url}\n    schedule: "${NEVER}"\n    timeout: 2s\n` +
    `    tls: { ca_file: ${cluster.cert}${pair ? `, cert_file: ${pair.cert}, key_file: ${pair.key}` : ''} }\n`;
  vigil = await startTestDaemon(`agents:\n${t('with-cert', good)}${t('without-cert')}${t('wrong-ca', foreign)}${t('rotating', rotating)}`, { settle: true });
}, 60_000);

afterAll(async () => {
  await vigil?.close();
  await sim?.close();
  removeCas(cluster, stranger);
});

describe('an agent that requires client certificates', () => {
  it('is read when polled with a certificate from its CA', async () => {
    const m = await vigil.metrics();
    expect(m.get(up('with-cert'))).toBe(1);
    expect(m.get(series('scheduler_agent_endpoint_up', { target: 'with-cert', endpoint: 'members' }))).toBe(1);
  });

  it.each(['without-cert', 'wrong-ca'])('is down with reason tls when polled %s', async (target) => {
    const m = await vigil.metrics();
    expect(m.get(up(target))).toBe(0);
    expect(m.get(failing(target, 'tls'))).toBe(1);
    for (const reason of ['connect', 'timeout', 'http_5xx']) expect(m.get(failing(target, reason)) ?? 0).toBe(0);
  });

  it('says in the log line that the upstream refused the client certificate', () => {
    const lines = vigil.logs().filter((l) => l.target === 'without-cert' && l.reason === 'tls');
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.stringify(lines[0])).toMatch(/client certificate/);
  });

  it("is vigil operator's problem: the shipped rules do not page the agent's on-call", async () => {
    const r = runSilentRulesTest(await vigil.scrape(), ['SchedulerAgentDown', 'SchedulerAgentUnhealthy']);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('presents a renewed pair written over the files on the next connection, without a reload', async () => {
    expect((await vigil.metrics()).get(up('rotating'))).toBe(0);
    copyFileSync(good.key, rotating.key);
    copyFileSync(good.cert, rotating.cert);
    await vigil.collect();
    const m = await vigil.metrics();
    expect(m.get(up('rotating'))).toBe(1);
    expect(m.get(failing('rotating', 'tls')) ?? 0).toBe(0);
    expect(vigil.logs().some((l) => l.target === 'rotating' && /client certificate files changed/.test(String(l.msg)))).toBe(true);
  });
});
