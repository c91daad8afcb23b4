import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, tempFile, type TestDaemon } from '../helpers/daemon.js';
import { series } from '../helpers/exposition.js';
import { NEVER } from '../helpers/schedules.js';

/**
 * A cluster of 40 nodes is polled at every node at once: the node requests must not each hang a
 * listener on the run's one signal (Node warns past 10 with `MaxListenersExceededWarning`, on stderr
 * at every poll and in `--config.check.probe`'s output).
 */
const NODES = 40;
let sim: SecretsSimulator;
let d: TestDaemon;
const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);

beforeAll(async () => {
  process.on('warning', onWarning);
  sim = await startSecretsSimulator({ clusters: [{ name: 'wide', nodes: NODES }] }, { walTickMs: 3_600_000 });
  const token = tempFile('wide-token', sim.cluster('wide').rootToken);
  d = await startTestDaemon(
    `secrets:\n  - { name: wide, address: "${sim.cluster('wide').url}", token_file: "${token}", schedule: "${NEVER}", replication_kinds: [dr] }\n`,
  );
}, 60_000);

afterAll(async () => {
  process.off('warning', onWarning);
  await d?.close();
  await sim?.close();
});

describe('the node poll of a cluster wider than 10 nodes', () => {
  it('polls every node without a MaxListenersExceededWarning', async () => {
    for (let i = 0; i < 2; i++) await d.collect();
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
    const m = await d.metrics();
    expect(m.get(series('secrets_nodes_discovered', { target: 'wide' }))).toBe(NODES);
    for (const [id, url] of sim.cluster('wide').nodes) expect(m.get(series('secrets_node_up', { target: 'wide', node: id, address: url }))).toBe(1);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
  }, 60_000);
});
