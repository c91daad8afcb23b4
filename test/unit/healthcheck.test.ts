import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { healthUrl, listenAddressOf, vigilFlags } from '../../src/healthcheck.js';

describe('the container HEALTHCHECK', () => {
  it('finds vigil flags on its command line, behind node or tini', () => {
    expect(vigilFlags(['node', 'dist/main.js', '--web.listen-address=:9811'])).toEqual(['--web.listen-address=:9811']);
    expect(vigilFlags(['/usr/bin/tini', '-e', '143', '--', 'node', 'dist/main.js', '--config.file=/c.yml'])).toEqual(['--config.file=/c.yml']);
    expect(vigilFlags(['node', 'dist/healthcheck.js'])).toBeUndefined();
  });

  it('asks loopback for a wildcard address and the host itself otherwise', () => {
    expect(healthUrl(':9811')).toBe('http://127.0.0.1:9811/healthz');
    expect(healthUrl('0.0.0.0:9810')).toBe('http://127.0.0.1:9810/healthz');
    expect(healthUrl('[::]:9812')).toBe('http://127.0.0.1:9812/healthz');
    expect(healthUrl('10.1.2.3:9813')).toBe('http://10.1.2.3:9813/healthz');
    expect(healthUrl('[::1]:9814')).toBe('http://[::1]:9814/healthz');
  });

  it('takes the flag first, else the config of the running vigil (relative to its working directory)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-healthcheck-'));
    writeFileSync(join(dir, 'v.yml'), 'web:\n  listen_address: 127.0.0.1:${PORT}\n');
    const env = { PORT: '9815' };
    expect(await listenAddressOf({ argv: ['--config.file=v.yml'], cwd: dir, env })).toBe('127.0.0.1:9815');
    expect(await listenAddressOf({ argv: ['--config.file=v.yml', '--web.listen-address=:9816'], cwd: dir, env })).toBe(':9816');
  });
});
