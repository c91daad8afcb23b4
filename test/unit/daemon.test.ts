import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { Daemon, type Component } from '../../src/daemon.js';
import { createLogger } from '../../src/support/logger.js';

const config = (listen: string) => parseConfig(`web:\n  listen_address: "${listen}"\n`, 'test.yml', {});

/** Remembers what it was given; refuses configs listening on port 1. */
class Recorder implements Component {
  applied: string[] = [];
  stopped = 0;
  async apply(c: Config): Promise<void> {
    if (c.web.listen_address.endsWith(':1')) throw new Error('refused');
    this.applied.push(c.web.listen_address);
  }
  async stop(): Promise<void> {
    this.stopped++;
  }
}

describe('daemon components', () => {
  it('get every config applied, a refusal fails the reload and keeps the running config, and stop with the daemon', async () => {
    const daemon = new Daemon(createLogger('error', 'json', new PassThrough()));
    const c = new Recorder();
    daemon.use(c);
    await daemon.apply(config(':9810'));
    await daemon.reload(async () => config(':9811'));
    await expect(daemon.reload(async () => config(':1'))).rejects.toThrow('refused');
    expect(c.applied).toEqual([':9810', ':9811']);
    expect(daemon.config?.web.listen_address).toBe(':9811');
    expect(daemon.snapshot().text).toContain('vigil_config_last_reload_successful 0');
    await daemon.stop();
    expect(c.stopped).toBe(1);
  });

  it('say what they lack from the start, before a config is loaded, and keep the daemon unready until then', async () => {
    const daemon = new Daemon(createLogger('error', 'json', new PassThrough()));
    let lacking: string | undefined = 'store directory not writable: chown -R 1000:1000 DIR';
    daemon.use({ apply: async () => undefined, stop: async () => undefined, readiness: () => (lacking ? { ready: false, reason: lacking } : { ready: true }) });
    expect(daemon.readiness()).toEqual({ ready: false, pending: ['configuration'], unavailable: [lacking] });
    lacking = undefined;
    expect(daemon.readiness()).toEqual({ ready: false, pending: ['configuration'] });
    await daemon.apply(config(':9810'));
    expect(daemon.readiness()).toEqual({ ready: true, pending: [] });
    await daemon.stop();
  });
});

describe('a sharded daemon', () => {
  const agents = (n: number, extra = '') =>
    parseConfig(
      `agents:\n${Array.from({ length: n }, (_, i) => `  - { name: agent-${i}, address: "http://127.0.0.1:1", schedule: "0 0 0 1 1 *" }`).join('\n')}\n${extra}`,
      'test.yml',
      {},
    );

  it('polls only its shard, says which on /metrics, and gives the components the whole config', async () => {
    const daemons = [0, 1].map((shard) => new Daemon(createLogger('error', 'json', new PassThrough()), { shard: { totalShards: 2, shard } }));
    const recorders = daemons.map((d) => {
      const r = new Recorder();
      d.use(r);
      return r;
    });
    for (const d of daemons) await d.apply(agents(20));
    const polled = daemons.map((d) => new Set(d.targets().map((t) => t.target)));
    expect(polled.map((p) => p.size).reduce((a, b) => a + b)).toBe(20);
    expect([...polled[0]!].filter((t) => polled[1]!.has(t))).toEqual([]);
    expect(recorders.map((r) => r.applied.length)).toEqual([1, 1]);
    for (const [i, d] of daemons.entries()) {
      const text = d.snapshot().text;
      expect(text).toMatch(new RegExp(`^vigil_shard_ordinal ${i}$`, 'm'));
      expect(text).toMatch(/^vigil_total_shards 2$/m);
      expect(text).toContain(`vigil_shard_targets{shard="0"} ${polled[0]!.size}`);
      expect(text).toContain(`vigil_shard_targets{shard="1"} ${polled[1]!.size}`);
    }
    for (const d of daemons) await d.stop();
  });

  it('rejects a reload whose sharding its flags cannot meet, and keeps polling its shard', async () => {
    const daemon = new Daemon(createLogger('error', 'json', new PassThrough()), { shard: { pod: 'vigil-2' } });
    await daemon.apply(agents(6, 'sharding: { total_shards: 3 }\n'));
    const before = daemon.targets().map((t) => t.target);
    await expect(daemon.reload(async () => agents(6, 'sharding: { total_shards: 2 }\n'))).rejects.toThrow(
      /--pod vigil-2: shard 2 is not below sharding.total_shards 2/,
    );
    expect(daemon.targets().map((t) => t.target)).toEqual(before);
    expect(daemon.snapshot().text).toMatch(/^vigil_total_shards 3$/m);
    await daemon.stop();
  });
});
