import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { configProblems } from '../../helpers/failures.js';

/** Config text an attacker or an accident could supply: refused with a config error, secrets unshown. */

describe('environment variables', () => {
  it('take ${NAME:-default} when NAME is unset or empty, and NAME when set', () => {
    const yaml = 'secrets:\n  - name: a\n    address: "${ADDR:-http://127.0.0.1:8200}"\n';
    expect(parseConfig(yaml, 'vigil.yml', {}).secrets[0]?.address).toBe('http://127.0.0.1:8200');
    expect(parseConfig(yaml, 'vigil.yml', { ADDR: '' }).secrets[0]?.address).toBe('http://127.0.0.1:8200');
    expect(parseConfig(yaml, 'vigil.yml', { ADDR: 'https://vault:8200' }).secrets[0]?.address).toBe('https://vault:8200');
    expect(parseConfig('secrets:\n  - name: a\n    address: "${ADDR:-}http://x"\n', 'vigil.yml', {}).secrets[0]?.address).toBe('http://x');
  });

  it('never appear in a message about the value they made: the name is shown instead', () => {
    const problems = configProblems('secrets:\n  - name: a\n    address: "https://${HOST}/v1?token=${TOKEN}"\n', { HOST: 'vault host', TOKEN: 's3cr3t-t0ken' });
    expect(problems).toEqual(['secrets[0].address: invalid URL "https://${HOST}/v1?token=${TOKEN}"']);
    expect(problems.join()).not.toContain('s3cr3t-t0ken');
  });
});

describe('a YAML alias bomb', () => {
  it('is a config error naming the file, not a crash', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      levels.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const problems = configProblems(`${levels.join('\n')}\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^vigil\.yml: YAML: .*alias/i);
  });
});
