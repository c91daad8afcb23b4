import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { healthUrl, healthyStatus, listenAddressOf, vigilFlags, webOf } from '../../src/healthcheck.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('the container HEALTHCHECK', () => {
  it('finds vigil flags on its command line, behind node or tini', () => {
    expect(vigilFlags(['node', 'dist/main.js', '--web.listen-address=:9811'])).toEqual(['--web.listen-address=:9811']);
    expect(vigilFlags(['/usr/bin/tini', '-e', '143', '--', 'node', 'dist/main.js', '--config.file=/c.yml'])).toEqual(['--config.file=/c.yml']);
    expect(
      vigilFlags([
        '/usr/bin/tini',
        '-e',
        '143',
        '--',
        'node',
        '--single-threaded-gc',
        '--max-semi-space-size=4',
        '--expose-gc',
        'dist/main.js',
        '--config.file=/c.yml',
      ]),
    ).toEqual(['--config.file=/c.yml']);
    expect(vigilFlags(['node', 'dist/healthcheck.js'])).toBeUndefined();
  });

  it('asks loopback for a wildcard address and the host itself otherwise', () => {
    expect(healthUrl(':9811')).toBe('http://127.0.0.1:9811/healthz');
    expect(healthUrl('0.0.0.0:9810')).toBe('http://127.0.0.1:9810/healthz');
    expect(healthUrl('[::]:9812')).toBe('http://127.0.0.1:9812/healthz');
    expect(healthUrl('10.1.2.3:9813')).toBe('http://10.1.2.3:9813/healthz');
    expect(healthUrl('[::1]:9814')).toBe('http://[::1]:9814/healthz');
  });

  it('asks under the route prefix vigil serves everything under', () => {
    expect(healthUrl(':9811', false, '/vigil')).toBe('http://127.0.0.1:9811/vigil/healthz');
    expect(healthUrl(':9811', true, '/')).toBe('https://127.0.0.1:9811/healthz');
  });

  it('takes the flag first, else the config of the running vigil (relative to its working directory)', async () => {
    const dir = tempDir('vigil-healthcheck-');
    writeFileSync(join(dir, 'v.yml'), 'web:\n  listen_address: 127.0.0.1:${PORT}\n');
    const env = { PORT: '9815' };
    expect(await listenAddressOf({ argv: ['--config.file=v.yml'], cwd: dir, env })).toBe('127.0.0.1:9815');
    expect(await listenAddressOf({ argv: ['--config.file=v.yml', '--web.listen-address=:9816'], cwd: dir, env })).toBe(':9816');
  });

  it('uses https and accepts a 401 when the web config turns on TLS or basic auth', async () => {
    expect(healthUrl(':9817', true)).toBe('https://127.0.0.1:9817/healthz');
    expect(healthyStatus(200, false)).toBe(true);
    expect(healthyStatus(401, false)).toBe(false);
    expect(healthyStatus(401, true)).toBe(true);
    expect(healthyStatus(503, true)).toBe(false);
    const dir = tempDir('vigil-healthcheck-web-');
    writeFileSync(join(dir, 'web.yml'), `basic_auth_users:\n  prometheus: ${bcrypt.hashSync('pw', 4)}\n`);
    expect(await webOf({ argv: ['--web.config.file=web.yml'], cwd: dir, env: {} })).toEqual({ tls: false, basicAuth: true });
    expect(await webOf({ argv: [], cwd: dir, env: {} })).toEqual({ tls: false, basicAuth: false });
  });
});
