import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-config-'));
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, 's.secret-token\n');

function problems(yaml: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseConfig(yaml, 'vigil.yml', env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  throw new Error('config was accepted');
}

describe('a valid config', () => {
  it('fills the documented defaults', () => {
    const c = parseConfig('secrets:\n  - name: east\n    address: https://secrets.example:8200\n', 'vigil.yml', {});
    const t = c.secrets[0]!;
    expect(t.timeout).toBe(5000);
    expect(t.schedule).toBe('*/15 * * * * *');
    expect(t.replication_kinds).toEqual(['performance', 'dr']);
    expect(t.max_response_size).toBe(16 * 1024 * 1024);
    expect(t.tls).toEqual({ insecure_skip_verify: false });
    expect(t.merkle_check).toBeUndefined();
    expect(c.web.listen_address).toBe('0.0.0.0:9810');
    expect(c.agents).toEqual([]);
    expect(c.teams).toEqual([]);
  });

  it('accepts an empty file', () => {
    expect(parseConfig('', 'vigil.yml', {}).secrets).toEqual([]);
  });

  it('reads every secrets key', () => {
    const c = parseConfig(
      `secrets:
  - name: dr-sec
    address: http://127.0.0.1:8200/
    token_file: ${tokenFile}
    namespace: admin/
    tls: { ca_file: ${tokenFile}, insecure_skip_verify: true }
    timeout: 750ms
    schedule: "*/5 * * * * *"
    replication_kinds: [dr]
    max_response_size: 1MiB
    merkle_check: { dr_operation_token_file: ${tokenFile}, schedule: "0 */30 * * * *", timeout: 2m }
`,
      'vigil.yml',
      {},
    );
    const t = c.secrets[0]!;
    expect(t).toMatchObject({ namespace: 'admin/', timeout: 750, replication_kinds: ['dr'], max_response_size: 1048576 });
    expect(t.merkle_check).toEqual({ dr_operation_token_file: tokenFile, schedule: '0 */30 * * * *', timeout: 120000 });
  });

  it('expands ${VAR} in values, and $${ stays literal', () => {
    const c = parseConfig('secrets:\n  - name: "${NAME}"\n    address: "http://${HOST}:8200"\n    namespace: "$${x}"\n', 'v', { NAME: 'east', HOST: '127.0.0.1' });
    expect(c.secrets[0]).toMatchObject({ name: 'east', address: 'http://127.0.0.1:8200', namespace: '${x}' });
  });
});

describe('a malformed config names the key path and the problem', () => {
  const ok = '    address: http://127.0.0.1:8200\n';
  it.each([
    ['a bad URL', `secrets:\n  - name: a\n${ok}  - name: b\n    address: not a url\n`, 'secrets[1].address: invalid URL "not a url"'],
    ['a URL with another scheme', `secrets:\n  - name: a\n    address: ftp://x\n`, 'secrets[0].address: invalid URL "ftp://x": scheme must be http or https'],
    ['an unknown top-level key', `secret:\n  - name: a\n`, 'secret: unknown key'],
    ['an unknown target key (a typo)', `secrets:\n  - name: a\n${ok}    timout: 5s\n`, 'secrets[0].timout: unknown key'],
    ['a missing name', `secrets:\n  - address: http://x\n`, 'secrets[0].name: required'],
    ['a duplicate name', `secrets:\n  - name: a\n${ok}  - name: a\n${ok}`, 'secrets[1].name: duplicate target name "a" (also at index 0)'],
    ['a bad duration', `secrets:\n  - name: a\n${ok}    timeout: 5 seconds\n`, 'secrets[0].timeout: invalid duration "5 seconds"'],
    ['a bad cron', `secrets:\n  - name: a\n${ok}    schedule: "every minute"\n`, 'secrets[0].schedule: invalid cron expression "every minute"'],
    ['an unknown kind', `secrets:\n  - name: a\n${ok}    replication_kinds: [dr, perf]\n`, 'secrets[0].replication_kinds[1]:'],
    ['a missing token file', `secrets:\n  - name: a\n${ok}    token_file: /nonexistent/token\n`, 'secrets[0].token_file: cannot read file "/nonexistent/token" (ENOENT)'],
    ['a merkle check without its token file', `secrets:\n  - name: a\n${ok}    merkle_check: {}\n`, 'secrets[0].merkle_check.dr_operation_token_file: required'],
    ['a bad listen address', `web:\n  listen_address: "9810"\n`, 'web.listen_address: must be HOST:PORT'],
    ['a list where a mapping belongs', `secrets:\n  - name: a\n${ok}    tls: [1]\n`, 'secrets[0].tls:'],
    ['a number where a string belongs (not "required")', `web:\n  listen_address: 9810\n`, 'web.listen_address: Invalid input: expected string, received number'],
  ])('%s', (_what, yaml, expected) => {
    expect(problems(yaml).join('\n')).toContain(expected);
  });

  it('reports an unset environment variable with the key', () => {
    expect(problems('secrets:\n  - name: a\n    address: "${ADDR}"\n')).toEqual(['secrets[0].address: environment variable ADDR is not set']);
  });

  it('reports YAML syntax errors with the file name', () => {
    expect(problems('secrets: [\n')[0]).toMatch(/^vigil\.yml: YAML: /);
  });

  it('rejects duplicate keys rather than silently taking one', () => {
    expect(problems('secrets: []\nsecrets: []\n')[0]).toMatch(/YAML/);
  });

  it('never echoes the content of a token file', () => {
    const msg = problems(`secrets:\n  - name: a\n    address: bad\n    token_file: ${tokenFile}\n`).join('\n');
    expect(msg).not.toContain('s.secret-token');
  });

  it('names an unreadable config file', async () => {
    await expect(loadConfig(join(dir, 'missing.yml'))).rejects.toThrow(/missing\.yml: cannot read config file \(ENOENT\)/);
  });
});
