import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../../src/config/load.js';
import { configProblems } from '../../helpers/failures.js';
import { tempDir } from '../../helpers/temp-dir.js';

const dir = tempDir('vigil-config-');
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, 's.secret-token\n');

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
    expect(t.merkle_check).toEqual({ dr_operation_token_file: tokenFile, schedule: '0 */30 * * * *', timeout: 120000, max_trees: 100 });
  });

  it('expands ${VAR} in values, and $${ stays literal', () => {
    const c = parseConfig('secrets:\n  - name: "${NAME}"\n    address: "http://${HOST}:8200"\n    namespace: "$${x}"\n', 'v', {
      NAME: 'east',
      HOST: '127.0.0.1',
    });
    expect(c.secrets[0]).toMatchObject({ name: 'east', address: 'http://127.0.0.1:8200', namespace: '${x}' });
  });
});

describe('an agents list', () => {
  it('fills the documented defaults: every 15 s, members, servers and self on, host off, 20000 members', () => {
    const t = parseConfig('agents:\n  - { name: east, address: http://127.0.0.1:4646 }\n', 'vigil.yml', {}).agents[0]!;
    expect(t).toMatchObject({ name: 'east', address: 'http://127.0.0.1:4646', schedule: '*/15 * * * * *', timeout: 5000 });
    expect(t).toMatchObject({ members: true, servers: true, self: true, host: false, max_members: 20000 });
    expect(t).toMatchObject({ max_nodes: 1000, max_node_groups: 1000 });
    expect(t.token_file).toBeUndefined();
    expect(t.tls).toEqual({ insecure_skip_verify: false });
  });

  it('reads every agent key', () => {
    const t = parseConfig(
      `agents:
  - name: west
    address: https://10.0.0.1:4646
    token_file: ${tokenFile}
    tls: { ca_file: ${tokenFile} }
    timeout: 2s
    schedule: "*/30 * * * * *"
    members: false
    servers: false
    self: false
    host: true
    max_members: 50
`,
      'vigil.yml',
      {},
    ).agents[0]!;
    expect(t).toMatchObject({ token_file: tokenFile, timeout: 2000, schedule: '*/30 * * * * *', tls: { ca_file: tokenFile } });
    expect(t).toMatchObject({ members: false, servers: false, self: false, host: true, max_members: 50 });
  });

  const at = '    address: http://127.0.0.1:4646\n';
  it.each([
    ['an unknown key', `agents:\n  - name: a\n${at}    hosts: true\n`, 'agents[0].hosts: unknown key'],
    ['an endpoint switch that is not a boolean', `agents:\n  - name: a\n${at}    members: "yes"\n`, 'agents[0].members:'],
    ['a negative max_members', `agents:\n  - name: a\n${at}    max_members: -1\n`, 'agents[0].max_members:'],
    ['a fractional max_members', `agents:\n  - name: a\n${at}    max_members: 1.5\n`, 'agents[0].max_members:'],
    ['a max_members past its bound', `agents:\n  - name: a\n${at}    max_members: 1000001\n`, 'agents[0].max_members:'],
    ['a max_nodes past its bound', `agents:\n  - name: a\n${at}    max_nodes: 100001\n`, 'agents[0].max_nodes:'],
    ['a max_node_groups past its bound', `agents:\n  - name: a\n${at}    max_node_groups: 100001\n`, 'agents[0].max_node_groups:'],
    ['a negative max_node_groups', `agents:\n  - name: a\n${at}    max_node_groups: -1\n`, 'agents[0].max_node_groups:'],
    ['a duplicate name', `agents:\n  - name: a\n${at}  - name: a\n${at}`, 'agents[1].name: duplicate target name "a" (also at index 0)'],
    ['a missing address', `agents:\n  - name: a\n`, 'agents[0].address: required'],
  ])('rejects %s, naming the key', (_what, yaml, expected) => {
    expect(configProblems(yaml).join('\n')).toContain(expected);
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
    [
      'a duration without its unit',
      `secrets:\n  - name: a\n${ok}    timeout: 5\n`,
      'secrets[0].timeout: 5 has no unit: a duration is written with one, e.g. "5s"',
    ],
    ['a bad cron', `secrets:\n  - name: a\n${ok}    schedule: "every minute"\n`, 'secrets[0].schedule: invalid cron expression "every minute"'],
    ['an unknown kind', `secrets:\n  - name: a\n${ok}    replication_kinds: [dr, perf]\n`, 'secrets[0].replication_kinds[1]:'],
    [
      'a missing token file',
      `secrets:\n  - name: a\n${ok}    token_file: /nonexistent/token\n`,
      'secrets[0].token_file: cannot read file "/nonexistent/token" (ENOENT)',
    ],
    [
      'a merkle check without its token file',
      `secrets:\n  - name: a\n${ok}    merkle_check: {}\n`,
      'secrets[0].merkle_check.dr_operation_token_file: required',
    ],
    ['a bad listen address', `web:\n  listen_address: "9810"\n`, 'web.listen_address: must be HOST:PORT'],
    ['a list where a mapping belongs', `secrets:\n  - name: a\n${ok}    tls: [1]\n`, 'secrets[0].tls:'],
    [
      'a number where a string belongs (not "required")',
      `web:\n  listen_address: 9810\n`,
      'web.listen_address: Invalid input: expected string, received number',
    ],
  ])('%s', (_what, yaml, expected) => {
    expect(configProblems(yaml).join('\n')).toContain(expected);
  });

  it('reports an unset environment variable with the key', () => {
    expect(configProblems('secrets:\n  - name: a\n    address: "${ADDR}"\n')).toEqual(['secrets[0].address: environment variable ADDR is not set']);
  });

  it('reports YAML syntax errors with the file name', () => {
    expect(configProblems('secrets: [\n')[0]).toMatch(/^vigil\.yml: YAML: /);
  });

  it.each([
    [
      'a flow sequence never closed',
      'secrets:\n  - name: a\n    address: [\n',
      'vigil.yml: YAML: Flow sequence in block collection must be sufficiently indented and end with a ] (line 4, column 1)',
    ],
    [
      'a mapping in a compact mapping',
      'web:\n  listen_address: a: b\n',
      'vigil.yml: YAML: Nested mappings are not allowed in compact mappings (line 2, column 19)',
    ],
  ])("a YAML syntax error is one line, the parser's message and where, no dangling colon: %s", (_what, yaml, expected) => {
    expect(configProblems(yaml)).toEqual([expected]);
  });

  it('rejects duplicate keys rather than silently taking one', () => {
    expect(configProblems('secrets: []\nsecrets: []\n')[0]).toMatch(/YAML/);
  });

  it('never echoes the content of a token file', () => {
    const msg = configProblems(`secrets:\n  - name: a\n    address: bad\n    token_file: ${tokenFile}\n`).join('\n');
    expect(msg).not.toContain('s.secret-token');
  });

  it('names an unreadable config file', async () => {
    await expect(loadConfig(join(dir, 'missing.yml'))).rejects.toThrow(`--config.file: cannot read file "${join(dir, 'missing.yml')}" (ENOENT)`);
  });
});

describe('alert_sink', () => {
  it('is off when the block is absent', () => {
    expect(parseConfig('', 'vigil.yml', {}).alert_sink).toBeUndefined();
  });

  it('fills the documented defaults from an empty block', () => {
    expect(parseConfig('alert_sink: {}\n', 'vigil.yml', {}).alert_sink).toEqual({
      enabled: true,
      max_in_flight: 64,
      max_in_flight_size: 16 * 1024 * 1024,
      store: { path: '/var/lib/vigil/alerts.db', retention: 30 * 86400_000, prune_interval: 3600_000 },
      body_limit: 10 * 1024 * 1024,
      allow_unauthenticated: false,
      limits: { max_label_values: 100, max_label_length: 128, max_depth: 64, max_answer_size: 16 * 1024 * 1024 },
      watchdog: { alertname: 'Watchdog', max_silence: 600_000 },
    });
  });

  it('reads every key', () => {
    const c = parseConfig(
      `alert_sink:
  enabled: false
  bearer_token_file: ${tokenFile}
  basic_auth: { username: am, password_file: ${tokenFile} }
  read_token_file: ${tokenFile}
  max_in_flight: 4
  max_in_flight_size: 2MiB
  store: { path: /tmp/alerts.db, retention: 7d, prune_interval: 5m, max_size: 1GiB }
  body_limit: 1MiB
  allow_unauthenticated: true
  limits: { max_label_values: 20, max_label_length: 64, max_depth: 32, max_answer_size: 1MiB }
  watchdog: { alertname: DeadMansSwitch, max_silence: 15m }
`,
      'vigil.yml',
      {},
    );
    expect(c.alert_sink).toEqual({
      enabled: false,
      bearer_token_file: tokenFile,
      basic_auth: { username: 'am', password_file: tokenFile },
      read_token_file: tokenFile,
      max_in_flight: 4,
      max_in_flight_size: 2 * 1024 * 1024,
      store: { path: '/tmp/alerts.db', retention: 7 * 86400_000, prune_interval: 300_000, max_size: 1024 ** 3 },
      body_limit: 1024 * 1024,
      allow_unauthenticated: true,
      limits: { max_label_values: 20, max_label_length: 64, max_depth: 32, max_answer_size: 1024 * 1024 },
      watchdog: { alertname: 'DeadMansSwitch', max_silence: 900_000 },
    });
  });

  it.each([
    ['a misspelt key', 'alert_sink:\n  body_limt: 1MiB\n', 'alert_sink.body_limt: unknown key'],
    ['a non-boolean enabled', 'alert_sink:\n  enabled: yes please\n', 'alert_sink.enabled: Invalid input: expected boolean, received string'],
    [
      'a missing bearer token file',
      'alert_sink:\n  bearer_token_file: /nonexistent/t\n',
      'alert_sink.bearer_token_file: cannot read file "/nonexistent/t" (ENOENT)',
    ],
    ['basic auth without its password file', 'alert_sink:\n  basic_auth: { username: am }\n', 'alert_sink.basic_auth.password_file: required'],
    [
      'a username with a colon',
      `alert_sink:\n  basic_auth: { username: "a:b", password_file: ${tokenFile} }\n`,
      'alert_sink.basic_auth.username: must not contain ":"',
    ],
    ['a bad retention', 'alert_sink:\n  store: { retention: a month }\n', 'alert_sink.store.retention: invalid duration "a month"'],
    ['an unknown store key', 'alert_sink:\n  store: { file: /x.db }\n', 'alert_sink.store.file: unknown key'],
    ['an empty store path', 'alert_sink:\n  store: { path: "" }\n', 'alert_sink.store.path:'],
    ['a bad body limit', 'alert_sink:\n  body_limit: ten megs\n', 'alert_sink.body_limit: invalid size "ten megs"'],
    ['a bad intake budget', 'alert_sink:\n  max_in_flight_size: lots\n', 'alert_sink.max_in_flight_size: invalid size "lots"'],
    [
      'an intake budget smaller than one body',
      'alert_sink:\n  body_limit: 32MiB\n',
      'alert_sink.max_in_flight_size: must be at least body_limit (33554432 bytes): a notification of body_limit bytes must fit',
    ],
    ['no notification in flight', 'alert_sink:\n  max_in_flight: 0\n', 'alert_sink.max_in_flight:'],
    ['a bad max_silence', 'alert_sink:\n  watchdog: { max_silence: 0s }\n', 'alert_sink.watchdog.max_silence: invalid duration "0s"'],
    ['an empty watchdog alertname', 'alert_sink:\n  watchdog: { alertname: "" }\n', 'alert_sink.watchdog.alertname:'],
    ['a list for the block', 'alert_sink: [1]\n', 'alert_sink:'],
  ])('%s names the key', (_what, yaml, expected) => {
    expect(configProblems(yaml).join('\n')).toContain(expected);
  });
});
