import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { makeCa, makeCert, removeCas } from '../helpers/certs.js';
import { tempFile } from '../helpers/daemon.js';
import { runVigil, runVigilAsync } from '../helpers/process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { agentCollector, agentPlan, nodesPlan as agentNodesPlan, workloadPlan } from '../../src/collectors/agent/collector.js';
import { nodesPlan, replicationPlan } from '../../src/collectors/secrets/plans.js';
import { secretsCollector } from '../../src/collectors/secrets/collector.js';
import { drOperationTokenAttemptEndpoint } from '../../src/collectors/secrets/dr-operation-token-attempt.js';
import type { Plan } from '../../src/collectors/plan.js';
import { calledBy } from '../helpers/plans.js';
import { startRecordingProxy } from '../helpers/recording-proxy.js';

/** `vigil --config.check` as an operator runs it before deploying, on good and broken setups. */
const SECRET = 'hunter2-agent-read-token';
/** A token that may read the gossip pool (node:read) but nothing agent:read guards. */
const NO_READ = 'hunter2-node-only-token';
const readToken = tempFile('token', `${SECRET}\n`);
const nodeOnlyToken = tempFile('token', `${NO_READ}\n`);
const dir = tempDir('vigil-check-');
mkdirSync(join(dir, 'a-directory'));

const check = (yaml: string, ...flags: string[]) => runVigil([`--config.file=${tempFile('vigil.yml', yaml)}`, '--config.check', ...flags]);
/** A target's header line in the probe's report, and its endpoints' lines under it. */
function block(out: string, subject: string): { header: string; lines: string[] } {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`${subject}:`));
  const end = lines.findIndex((l, i) => i > at && !l.startsWith('  '));
  return { header: lines[at] ?? '', lines: lines.slice(at + 1, end < 0 ? undefined : end).map((l) => l.trim()) };
}
/** How many endpoints both agent plans call for a target of these keys. */
const agentCalls = (extra: Record<string, unknown>) => {
  const t = agentCollector.target.parse({ name: 'x', address: 'http://127.0.0.1:1', ...extra });
  return [agentPlan, agentNodesPlan, workloadPlan].reduce((n, plan) => n + calledBy(plan as Plan, t).length, 0);
};
const probe = (yaml: string) => runVigilAsync([`--config.file=${tempFile('vigil.yml', yaml)}`, '--config.check', '--config.check.probe']);

describe('--config.check', () => {
  it('a good config: exit 0, one ok line per target and a summary', () => {
    const r = check(
      `secrets:\n  - { name: dr-primary, address: "http://127.0.0.1:8200", token_file: ${readToken} }\n` +
        `agents:\n  - { name: leader, address: "http://127.0.0.1:4646", token_file: ${readToken} }\n` +
        `alert_sink:\n  store: { path: ${join(dir, 'alerts.db')} }\n`,
    );
    expect(r.stdout).toBe('secrets dr-primary: ok\nagents leader: ok\nalert_sink: ok\n3 checked (3 ok, 0 with problems)\n');
    expect(r.status).toBe(0);
  });

  it('a directory where a file is expected, and a store in no directory: exit 1 naming the key and the file', () => {
    const r = check(
      `agents:\n  - { name: leader, address: "http://127.0.0.1:4646", token_file: ${join(dir, 'a-directory')} }\n` +
        `alert_sink:\n  store: { path: ${join(dir, 'nowhere', 'alerts.db')} }\n`,
    );
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`agents leader: token_file ${join(dir, 'a-directory')}: not a regular file\n`);
    expect(r.stdout).toContain(`alert_sink: alert_sink.store.path ${join(dir, 'nowhere', 'alerts.db')}: directory ${join(dir, 'nowhere')}: ENOENT`);
    expect(r.stdout).toContain('2 checked (0 ok, 2 with problems)');
  });

  it('a missing token file: exit 1 naming the key path, as at start', () => {
    const r = check(`secrets:\n  - { name: dr-primary, address: "http://127.0.0.1:8200", token_file: ${join(dir, 'missing')} }\n`);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`secrets[0].token_file: cannot read file "${join(dir, 'missing')}" (ENOENT)`);
  });

  it('a missing or unreadable config file: exit 1 in the same format, the flag naming the file', () => {
    for (const [file, problem] of [
      [join(dir, 'missing.yml'), 'ENOENT'],
      [join(dir, 'a-directory'), 'not a regular file'],
    ]) {
      const r = runVigil([`--config.file=${file}`, '--config.check']);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(`vigil: invalid configuration ${file}:\n  --config.file: cannot read file "${file}" (${problem})\n`);
    }
  });

  it('the web config: its certificate files are read as at start', () => {
    const web = tempFile('web.yml', `tls_server_config: { cert_file: ${join(dir, 'a-directory')}, key_file: ${readToken} }\n`);
    const r = check('{}\n', `--web.config.file=${web}`);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`web config: tls_server_config.cert_file: cannot read ${join(dir, 'a-directory')} (EISDIR)`);
    expect(r.stdout + r.stderr).not.toContain('hunter2');
  });

  it('a CA bundle and a certificate chain are public: read to the config size, not the 64 KiB a token may be', () => {
    const ca = makeCa('bundle');
    const bundle = join(dir, 'bundle.pem');
    const pem = readFileSync(ca.cert, 'utf8');
    removeCas(ca);
    writeFileSync(bundle, pem.repeat(Math.ceil((100 * 1024) / pem.length)));
    const r = check(`agents:\n  - { name: leader, address: "https://127.0.0.1:4646", token_file: ${readToken}, tls: { ca_file: ${bundle} } }\n`);
    expect(r.stdout).toBe('agents leader: ok\n1 checked (1 ok, 0 with problems)\n');
    expect(r.status).toBe(0);
  });

  it('--config.check.probe needs --config.check', () => {
    const r = runVigil(['--config.check.probe']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--config.check.probe: only with --config.check');
  });
});

describe('--config.check.probe', () => {
  let agents: AgentSimulator;
  let tlsAgents: AgentSimulator;
  let secrets: SecretsSimulator;
  let agentRead = '';
  const ca = makeCa('probe');
  const otherCa = makeCa('other');

  beforeAll(async () => {
    agents = await startAgentSimulator({
      agents: [{ name: 'leader-1', role: 'server', members: 3 }],
      acl: { enabled: true, tokens: [{ secret: NO_READ, policies: ['node:read'] }] },
    });
    agentRead = tempFile('token', `${agents.readToken}\n`);
    const server = makeCert(ca, '127.0.0.1', 'server');
    tlsAgents = await startAgentSimulator(
      { agents: [{ name: 'leader-1', role: 'server', members: 3 }] },
      { tls: { cert: readFileSync(server.cert), key: readFileSync(server.key) } },
    );
    secrets = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 });
    await fetch(`${secrets.cluster('perf-primary').url}/_sim/seal`, {
      method: 'POST',
      body: '{"sealed":true}',
      headers: { 'content-type': 'application/json' },
    });
  });
  afterAll(async () => {
    await Promise.all([agents?.close(), tlsAgents?.close(), secrets?.close()]);
    removeCas(ca, otherCa);
  });

  it('says per endpoint what to fix: a missing permission, a wrong CA, an unreachable target, a sealed cluster', async () => {
    const r = await probe(
      `agents:\n` +
        `  - { name: good, address: "${agents.agent('leader-1').url}", token_file: ${agentRead} }\n` +
        `  - { name: no-read, address: "${agents.agent('leader-1').url}", token_file: ${nodeOnlyToken} }\n` +
        `  - { name: wrong-ca, address: "${tlsAgents.agent('leader-1').url}", tls: { ca_file: ${otherCa.cert} } }\n` +
        `  - { name: gone, address: "http://127.0.0.1:1", timeout: 1s }\n` +
        `secrets:\n  - { name: sealed, address: "${secrets.cluster('perf-primary').url}", replication_kinds: [performance] }\n`,
    );
    const out = r.stdout;
    // A sealed cluster answers its node poll's calls sealed too; its one node's health, seal and seal backends are answers.
    const sealed = block(out, 'secrets sealed');
    const sealedTarget = secretsCollector.target.parse({ name: 'sealed', address: 'http://127.0.0.1:1', replication_kinds: ['performance'] });
    expect(sealed.lines.map((l) => l.replace(/ \(.*?\)?:.*$|:.*$/, '')).sort()).toEqual(
      // Every endpoint its plans call, but the DR operation token attempt: only a DR secondary's status calls for it.
      [...calledBy(replicationPlan as Plan, sealedTarget), ...calledBy(nodesPlan as Plan, sealedTarget)]
        .filter((id) => id !== drOperationTokenAttemptEndpoint.id)
        .sort(),
    );
    expect(sealed.header).toBe(`secrets sealed: 4 of ${sealed.lines.length} endpoints with problems`);
    expect(sealed.lines[0]).toMatch(/^secrets\/replication-status \(performance\): failed \(sealed\): /);
    expect(out).toContain('  secrets/ha-status: failed (sealed): ');
    expect(out).toMatch(/ {2}secrets\/node-health \(http:\/\/127\.0\.0\.1:\d+\): ok\n/);
    expect(out).toContain(
      'agents good: ok\n  agent/health: ok\n  agent/token: ok\n  agent/members: ok\n  agent/servers: not applicable (the agent runs no client (501))\n  agent/self: ok\n  agent/autopilot: ok\n  agent/license: not applicable (the community edition (204 No Content, or 501 "Nomad Enterprise only endpoint"), a release without the endpoint (404, before 0.12), the token lacks operator:read (403), or the agent reaches no server (500 "no servers"))\n  agent/nodes: ok\n  agent/jobs: ok\n  agent/evaluations: ok\n  agent/deployments: ok\n',
    );
    // Any valid token reads itself: the token endpoint needs no policy.
    expect(out).toContain(`agents no-read: 1 of ${agentCalls({ token_file: nodeOnlyToken })} endpoints with problems\n`);
    expect(out).toContain('  agent/self: refused (HTTP 403): needs agent:read\n');
    // A token without operator:read costs the autopilot health, not a failure: the probe says why.
    expect(out).toContain('  agent/autopilot: not applicable (the token lacks operator:read (403)');
    // So does a token that may read no namespace's jobs: the probe names the capability.
    expect(out).toContain('  agent/jobs: not applicable (the token may not read jobs (403 without namespace:list-jobs and namespace:read-job))\n');
    // Without a token file, every endpoint but the token's.
    const anonymous = agentCalls({});
    expect(out).toContain(`agents wrong-ca: ${anonymous} of ${anonymous} endpoints with problems\n  agent/health: TLS failure: `);
    expect(out).toContain(`agents gone: ${anonymous} of ${anonymous} endpoints with problems\n  agent/health: unreachable (connect): `);
    expect(r.stdout).toContain('5 checked (1 ok, 4 with problems), every endpoint that only reads polled once\n');
    expect(r.status).toBe(1);
    expect(r.stdout + r.stderr).not.toContain('hunter2');
    expect(r.stdout + r.stderr).not.toContain(agents.readToken);
  });

  it('names what the automated snapshots need: read on their status, sudo to list them', async () => {
    const backed = await startSecretsSimulator({ clusters: [{ name: 'backed', nodes: 1, snapshots: [{ name: 'daily' }] }] }, { walTickMs: 3_600_000 });
    try {
      const res = await fetch(`${backed.cluster('backed').url}/_sim/tokens`, { method: 'POST', body: '{}' });
      const reader = tempFile('token', ((await res.json()) as { token: string }).token);
      const target = (name: string, token: string) =>
        `  - { name: ${name}, address: "${backed.cluster('backed').url}", token_file: ${token}, replication_kinds: [dr], nodes: { enabled: false }, snapshots: { names: [daily], list: true } }\n`;
      const r = await probe(`secrets:\n${target('reader', reader)}${target('stranger', tempFile('token', 'not-a-token'))}`);
      const readerBlock = block(r.stdout, 'secrets reader');
      expect(readerBlock.lines).toContain('secrets/raft-snapshot-status (daily): ok');
      expect(readerBlock.lines.find((l) => l.startsWith('secrets/raft-snapshot-configs'))).toMatch(
        /^secrets\/raft-snapshot-configs: not applicable \(the token may not list \(403/,
      );
      expect(r.stdout).toContain(
        '  secrets/raft-snapshot-status (daily): refused (HTTP 403): needs read on sys/storage/raft/snapshot-auto/status/<name> (root namespace; no sudo)\n',
      );
    } finally {
      await backed.close();
    }
  });

  it('starts no merkle check: a check acts on nothing, and says which call it left out', async () => {
    const secondary = secrets.cluster('dr-secondary');
    const proxy = await startRecordingProxy(secondary.url);
    try {
      const opToken = tempFile('dr-op', secondary.drOperationToken());
      const r = await probe(
        `secrets:\n  - name: dr-secondary\n    address: "${proxy.url}"\n    token_file: ${tempFile('token', secondary.rootToken)}\n` +
          `    merkle_check: { dr_operation_token_file: ${opToken} }\n`,
      );
      // The rest of the target was probed through the proxy, and nothing but reads reached the cluster.
      expect(proxy.requests.some((q) => q.startsWith('GET /v1/sys/replication/dr/status'))).toBe(true);
      expect(proxy.requests.filter((q) => !q.startsWith('GET '))).toEqual([]);
      expect(r.stdout).toContain('  secrets/merkle-check: not called by the probe (it would start a merkle check on the cluster)\n');
    } finally {
      await proxy.close();
    }
  });
});
