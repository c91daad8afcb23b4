import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { configProblems } from '../../helpers/failures.js';
import { tempDir } from '../../helpers/temp-dir.js';

const dir = tempDir('vigil-teams-config-');
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, 'abc.atlasv1.secret\n');

const target = (extra = '') => `teams:\n  - name: acme\n    address: https://teams.example\n    organization: acme\n    token_file: ${tokenFile}\n${extra}`;

describe('a teams target', () => {
  it('fills the documented defaults', () => {
    const t = parseConfig(target(), 'vigil.yml', {}).teams[0]!;
    expect(t).toEqual({
      name: 'acme',
      address: 'https://teams.example',
      organization: 'acme',
      token_file: tokenFile,
      tls: { insecure_skip_verify: false },
      timeout: 5000,
      schedule: '0 */5 * * * *',
      max_response_size: 16 * 1024 * 1024,
      proxy_from_environment: false,
      page_size: 100,
      requests_per_second: 25,
      max_teams: 10_000,
      max_pages: 1000,
      max_listing_size: 256 * 1024 * 1024,
      complete_access: false,
      owners_team: 'owners',
      loss_alert_fraction: 0.2,
    });
  });

  it('reads every key', () => {
    const t = parseConfig(
      target(`    timeout: 2s
    schedule: "0 * * * * *"
    page_size: 20
    requests_per_second: 5
    max_teams: 0
    max_pages: 10
    max_listing_size: 64MiB
    complete_access: true
`),
      'vigil.yml',
      {},
    ).teams[0]!;
    expect(t).toMatchObject({
      timeout: 2000,
      schedule: '0 * * * * *',
      page_size: 20,
      requests_per_second: 5,
      max_teams: 0,
      max_pages: 10,
      max_listing_size: 64 * 1024 * 1024,
      complete_access: true,
    });
  });

  it.each([
    ['no token file', `teams:\n  - name: a\n    address: https://x\n    organization: o\n`, 'teams[0].token_file: required'],
    ['no organization', `teams:\n  - name: a\n    address: https://x\n    token_file: ${tokenFile}\n`, 'teams[0].organization: required'],
    ['a page size above the service maximum', target('    page_size: 101\n'), 'teams[0].page_size:'],
    ['a page size of 0', target('    page_size: 0\n'), 'teams[0].page_size:'],
    ['a rate of 0', target('    requests_per_second: 0\n'), 'teams[0].requests_per_second:'],
    ['a listing budget that is not a size', target('    max_listing_size: lots\n'), 'teams[0].max_listing_size: invalid size "lots"'],
    ['a listing budget of 0', target('    max_listing_size: 0\n'), 'teams[0].max_listing_size: invalid size "0"'],
    ['an unknown key', target('    pagesize: 10\n'), 'teams[0].pagesize: unknown key'],
    [
      'a duplicate name',
      `${target()}  - name: acme\n    address: https://y\n    organization: o\n    token_file: ${tokenFile}\n`,
      'teams[1].name: duplicate target name "acme"',
    ],
  ])('refuses %s', (_what, yaml, expected) => {
    expect(configProblems(yaml).join('\n')).toContain(expected);
  });
});
