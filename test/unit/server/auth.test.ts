import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BasicAuth, basicCredentials, MAX_WAITING_ROUNDS } from '../../../src/server/auth.js';

const PASSWORD = 'scrape-secret';
// Cost 4: these tests count rounds, they do not need slow ones.
const users = new Map([['prometheus', bcrypt.hashSync(PASSWORD, 4)]]);
const header = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('basic auth against bcrypt hashes', () => {
  it('accepts the right password and refuses a wrong one, a wrong user and no header', async () => {
    const auth = new BasicAuth(users);
    expect(await auth.verify(header('prometheus', PASSWORD))).toBe('ok');
    expect(await auth.verify(header('prometheus', 'nope'))).toBe('wrong');
    expect(await auth.verify(header('root', PASSWORD))).toBe('wrong');
    expect(await auth.verify(undefined)).toBe('missing');
    expect(await auth.verify('Bearer abc')).toBe('wrong');
  });

  it('pays one bcrypt round for the first success, none for the next scrapes with the same credentials', async () => {
    const auth = new BasicAuth(users);
    const compare = vi.spyOn(bcrypt, 'compare');
    expect(auth.cached(header('prometheus', PASSWORD))).toBeUndefined();
    expect(await auth.verify(header('prometheus', PASSWORD))).toBe('ok');
    for (let i = 0; i < 20; i++) expect(auth.cached(header('prometheus', PASSWORD))).toBe('ok');
    expect(await auth.verify(header('prometheus', PASSWORD))).toBe('ok');
    expect(compare).toHaveBeenCalledTimes(1);
  });

  it('never caches a failure into a success, and a wrong password after a right one still fails', async () => {
    const auth = new BasicAuth(users);
    await auth.verify(header('prometheus', PASSWORD));
    expect(auth.cached(header('prometheus', `${PASSWORD}x`))).toBeUndefined();
    expect(await auth.verify(header('prometheus', `${PASSWORD}x`))).toBe('wrong');
    expect(await auth.verify(header('prometheus', PASSWORD))).toBe('ok');
  });

  it('runs a round for an unknown user too, so timing does not tell which users exist', async () => {
    const auth = new BasicAuth(users);
    const compare = vi.spyOn(bcrypt, 'compare');
    expect(await auth.verify(header('nobody', 'x'))).toBe('wrong');
    expect(compare).toHaveBeenCalledTimes(1);
  });

  it(`turns checks away once ${MAX_WAITING_ROUNDS} rounds wait, instead of queueing without bound`, async () => {
    const auth = new BasicAuth(users);
    const outcomes = await Promise.all(Array.from({ length: MAX_WAITING_ROUNDS + 5 }, (_, i) => auth.verify(header('prometheus', `wrong-${i}`))));
    expect(outcomes.filter((o) => o === 'busy')).toHaveLength(5);
    expect(outcomes.filter((o) => o === 'wrong')).toHaveLength(MAX_WAITING_ROUNDS);
    // The queue drains: a right password gets through afterwards.
    expect(await auth.verify(header('prometheus', PASSWORD))).toBe('ok');
  });

  it('splits user and password at the first colon (a password may hold colons)', () => {
    expect(basicCredentials(header('u', 'a:b:c'))).toEqual({ user: 'u', password: 'a:b:c' });
    expect(basicCredentials(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
  });
});
