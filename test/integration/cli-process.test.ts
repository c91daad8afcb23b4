import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempFile } from '../helpers/daemon.js';
import { parseExposition, series } from '../helpers/exposition.js';
import { runVigil, startVigil, type VigilProcess } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

/** The vigil command as an operator runs it: flags, config errors, signals. */
const token = tempFile('token', 'hunter2-secret-token\n');

describe('vigil command', () => {
  it('--version prints the version', () => {
    const r = runVigil(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.startsWith(`vigil `)).toBe(true);
    expect(r.stdout).toMatch(/^vigil \d+\.\d+\.\d+ \(revision [0-9a-f]{7,}, branch \S+, node v\d+\.\d+\.\d+\)\n$/);
    expect(r.stdout).toContain(`node ${process.version})`);
  });

  it('--help lists the flags', () => {
    const r = runVigil(['--help']);
    expect(r.status).toBe(0);
    for (const f of ['--config.file', '--web.listen-address', '--web.config.file', '--web.enable-lifecycle', '--log.level', '--log.format', '--version'])
      expect(r.stdout).toContain(f);
  });

  it('a bad flag exits 2 naming it', () => {
    const r = runVigil(['--log.level=loud']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--log.level: "loud" is not one of debug, info, warn, error');
  });

  it('a bad config exits 1 naming the key path and the problem, and never the token', () => {
    const cfg = tempFile(
      'vigil.yml',
      `secrets:\n  - name: a\n    address: http://127.0.0.1:8200\n    token_file: ${token}\n  - name: b\n    address: not-a-url\n    token_file: ${token}\n`,
    );
    const r = runVigil([`--config.file=${cfg}`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('secrets[1].address: invalid URL "not-a-url"');
    expect(r.stderr + r.stdout).not.toContain('hunter2');
  });

  it('a bad web config exits 1 naming the file and the key, and never the password', () => {
    const cfg = tempFile('vigil.yml', '{}\n');
    const web = tempFile('web.yml', 'basic_auth_users:\n  prometheus: hunter2-plain-password\ntls_server_config: { cert_file: /nonexistent.pem }\n');
    const r = runVigil([`--config.file=${cfg}`, `--web.config.file=${web}`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`invalid web configuration ${web}`);
    expect(r.stderr).toContain('basic_auth_users.prometheus: is not a bcrypt hash');
    expect(r.stderr).toContain('tls_server_config.key_file: required');
    expect(r.stderr + r.stdout).not.toContain('hunter2');
  });

  it('a web config whose certificate cannot be read exits 1 naming the key and the file', () => {
    const cfg = tempFile('vigil.yml', '{}\n');
    const web = tempFile('web.yml', 'tls_server_config: { cert_file: /nonexistent/cert.pem, key_file: /nonexistent/key.pem }\n');
    const r = runVigil([`--config.file=${cfg}`, `--web.config.file=${web}`, '--web.listen-address=127.0.0.1:0']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`invalid web configuration ${web}`);
    // Both files are missing: whichever is read first is named.
    expect(r.stderr).toMatch(/tls_server_config\.(cert|key)_file: cannot read \/nonexistent\/(cert|key)\.pem \(ENOENT\)/);
  });

  it('a missing config file exits 1 naming the flag and the file, as a missing token file names its key', () => {
    const r = runVigil(['--config.file=/nonexistent/vigil.yml']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('vigil: invalid configuration /nonexistent/vigil.yml:\n  --config.file: cannot read file "/nonexistent/vigil.yml" (ENOENT)\n');
  });
});

describe('reload', () => {
  let vigil: VigilProcess | undefined;
  afterAll(async () => {
    await vigil?.stop();
  });

  it('SIGHUP with a bad file keeps the old config running; POST /-/reload applies a good one', async () => {
    const cfg = tempFile('vigil.yml', 'secrets:\n  - name: first\n    address: http://127.0.0.1:1\n');
    vigil = startVigil([`--config.file=${cfg}`, '--web.listen-address=127.0.0.1:0', '--log.format=json', '--web.enable-lifecycle']);
    const url = await vigil.ready('configuration loaded');
    // the first collection's series are served (the collection thread sends them within 200 ms)
    const served = (target: string) => async () =>
      parseExposition(await (await fetch(`${url}/metrics`)).text()).has(series('secrets_replication_up', { target, kind: 'dr' })) ? true : undefined;
    await waitFor('the first target’s series', served('first'));
    writeFileSync(cfg, 'secrets:\n  - name: second\n    address: nope\n');
    vigil.child.kill('SIGHUP');
    await vigil.waitFor(/new configuration rejected/);
    expect(vigil.output()).toContain('secrets[0].address: invalid URL');
    let m = parseExposition(await (await fetch(`${url}/metrics`)).text());
    expect(m.get(series('vigil_config_last_reload_successful'))).toBe(0);
    expect(m.has(series('secrets_replication_up', { target: 'first', kind: 'dr' }))).toBe(true);

    writeFileSync(cfg, 'secrets:\n  - name: second\n    address: http://127.0.0.1:1\n');
    const res = await fetch(`${url}/-/reload`, { method: 'POST' });
    expect(res.status).toBe(200);
    await vigil.waitFor(/"target":"second"/);
    await waitFor('the second target’s series', served('second'));
    m = parseExposition(await (await fetch(`${url}/metrics`)).text());
    expect(m.get(series('vigil_config_last_reload_successful'))).toBe(1);
    expect(m.has(series('secrets_replication_up', { target: 'first', kind: 'dr' }))).toBe(false);

    writeFileSync(cfg, 'secrets: 5\n');
    const bad = await fetch(`${url}/-/reload`, { method: 'POST' });
    expect(bad.status).toBe(500);
    expect(await bad.text()).toContain('secrets:');
    expect(await vigil.stop()).toBe(0);
    // Generous: it spawns vigil through tsx, which is slow when the machine is busy with other tests.
  }, 90_000);
});
