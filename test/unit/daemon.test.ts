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
