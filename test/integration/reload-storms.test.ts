import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { demoSecretsScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { NEVER } from '../helpers/schedules.js';
import { waitFor } from '../helpers/wait.js';

/** Reload storms and POST /-/collect loops do not multiply what vigil asks of the upstreams (issue 17). */

let sim: SecretsSimulator;
let vigil: TestDaemon;
let drTokenFile: string;

function config(primaryTimeout = '500ms'): string {
  const t = (name: string, timeout: string, extra = '') =>
    `  - name: ${name}\n    address: ${sim.cluster(name).url}\n    timeout: ${timeout}\n    schedule: "${NEVER}"\n${extra}`;
  return `secrets:\n${t('dr-primary', primaryTimeout)}${t('dr-secondary', '500ms', `    merkle_check: { dr_operation_token_file: ${drTokenFile}, schedule: "0 0 * * * *" }\n`)}`;
}
const runs = () => Object.fromEntries(vigil.daemon.targets().map((t) => [`${t.collector}/${t.target}`, t.runs]));

beforeAll(async () => {
  sim = await startSecretsSimulator(demoSecretsScenario(), { walTickMs: 3_600_000 });
  drTokenFile = tempFile('dr-op', sim.cluster('dr-secondary').drOperationToken());
  // Every POST /-/collect runs here (no minimum interval): what one run asks is what is counted.
  vigil = await startTestDaemon(config(), { collectMinInterval: 0 });
});
afterAll(async () => {
  await vigil?.close();
  await sim?.close();
});

describe('POST /-/collect', () => {
  it('runs the status jobs each time, and the hourly merkle check no more than hourly', async () => {
    const before = runs();
    for (let i = 0; i < 5; i++) expect((await fetch(`${vigil.url}/-/collect`, { method: 'POST' })).status).toBe(200);
    const after = runs();
    expect(after['secrets_replication/dr-primary']).toBe((before['secrets_replication/dr-primary'] ?? NaN) + 5);
    expect(after['secrets_merkle_check/dr-secondary']).toBe(before['secrets_merkle_check/dr-secondary']);
  });
});

describe('POST /-/collect in a loop, within the minimum interval', () => {
  it('runs once, each later call answered from that run', async () => {
    // An hour: however slow this machine, every call lands within it (the interval itself: lifecycle.test.ts).
    const looped = await startTestDaemon(config(), { collectMinInterval: 3_600_000 });
    try {
      const jobs = () => looped.daemon.targets().find((t) => t.collector === 'secrets_replication' && t.target === 'dr-primary')?.runs ?? NaN;
      const before = jobs();
      const answers: unknown[] = [];
      for (let i = 0; i < 10; i++) answers.push(await (await fetch(`${looped.url}/-/collect`, { method: 'POST' })).json());
      expect(jobs()).toBe(before + 1);
      expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    } finally {
      await looped.close();
    }
  });
});

describe('a reload storm', () => {
  it('is coalesced, and re-runs no job whose target did not change', async () => {
    const before = runs();
    let loads = 0;
    const load = async () => {
      loads++;
      return parseConfig(config(), 'test.yml', process.env);
    };
    await Promise.all(Array.from({ length: 50 }, () => vigil.daemon.reload(load)));
    expect(loads).toBeLessThanOrEqual(2);
    // Joins any run a reload started, and runs the status jobs once more (not the merkle check).
    await vigil.daemon.collectNow();
    const after = runs();
    for (const [key, n] of Object.entries(before)) expect(after[key], key).toBe(key.startsWith('secrets_merkle') ? n : (n ?? NaN) + 1);
  });

  it('re-runs at once the jobs of a target whose config changed', async () => {
    const before = runs();
    await vigil.daemon.reload(async () => parseConfig(config('700ms'), 'test.yml', process.env));
    await waitFor('the changed target to run', async () =>
      runs()['secrets_replication/dr-primary'] === (before['secrets_replication/dr-primary'] ?? NaN) + 1 ? true : undefined,
    );
    expect(runs()['secrets_replication/dr-secondary']).toBe(before['secrets_replication/dr-secondary']);
    expect(runs()['secrets_merkle_check/dr-secondary']).toBe(before['secrets_merkle_check/dr-secondary']);
  });
});
