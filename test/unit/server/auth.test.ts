import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH_THROTTLE, AuthThrottle } from '../../../src/server/auth-throttle.js';
import { BasicAuth, basicCredentials } from '../../../src/server/auth.js';
import { BcryptThread, startBcryptWorker, type Comparer } from '../../../src/server/bcrypt-thread.js';
import { CHECK_QUEUE } from '../../../src/server/check-queue.js';
import { waitFor } from '../../helpers/wait.js';

const PASSWORD = 'scrape-secret';
// Cost 4: these tests count rounds, they do not need slow ones.
const users = new Map([['prometheus', bcrypt.hashSync(PASSWORD, 4)]]);
const header = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
const CLIENT = '192.0.2.1';

/** bcryptjs in this thread, counting its rounds. */
function counting(): Comparer & { rounds: number } {
  const compare = Object.assign((password: string, hash: string) => (compare.rounds++, bcrypt.compare(password, hash)), { rounds: 0 });
  return compare;
}

const threads: BcryptThread[] = [];
function thread(...args: ConstructorParameters<typeof BcryptThread>): BcryptThread {
  const t = new BcryptThread(...args);
  threads.push(t);
  return t;
}
afterEach(async () => {
  await Promise.all(threads.splice(0).map((t) => t.close()));
});

describe('basic auth against bcrypt hashes', () => {
  it('accepts the right password and refuses a wrong one, a wrong user and no header', async () => {
    const auth = new BasicAuth(users, { compare: counting() });
    expect(await auth.verify(header('prometheus', PASSWORD), CLIENT)).toBe('ok');
    expect(await auth.verify(header('prometheus', 'nope'), CLIENT)).toBe('wrong');
    expect(await auth.verify(header('root', PASSWORD), CLIENT)).toBe('wrong');
    expect(await auth.verify(undefined, CLIENT)).toBe('missing');
    expect(await auth.verify('Bearer abc', CLIENT)).toBe('wrong');
  });

  it('pays one bcrypt round for the first success, none for the next scrapes with the same credentials', async () => {
    const compare = counting();
    const auth = new BasicAuth(users, { compare });
    expect(auth.cached(header('prometheus', PASSWORD))).toBeUndefined();
    expect(await auth.verify(header('prometheus', PASSWORD), CLIENT)).toBe('ok');
    for (let i = 0; i < 20; i++) expect(auth.cached(header('prometheus', PASSWORD))).toBe('ok');
    expect(await auth.verify(header('prometheus', PASSWORD), CLIENT)).toBe('ok');
    expect(compare.rounds).toBe(1);
  });

  it('never caches a failure into a success, and a wrong password after a right one still fails', async () => {
    const auth = new BasicAuth(users, { compare: counting() });
    await auth.verify(header('prometheus', PASSWORD), CLIENT);
    expect(auth.cached(header('prometheus', `${PASSWORD}x`))).toBeUndefined();
    expect(await auth.verify(header('prometheus', `${PASSWORD}x`), CLIENT)).toBe('wrong');
    expect(await auth.verify(header('prometheus', PASSWORD), CLIENT)).toBe('ok');
  });

  it('runs a round for an unknown user too, so timing does not tell which users exist', async () => {
    const compare = counting();
    const auth = new BasicAuth(users, { compare });
    expect(await auth.verify(header('nobody', 'x'), CLIENT)).toBe('wrong');
    expect(compare.rounds).toBe(1);
  });

  it('splits user and password at the first colon (a password may hold colons)', () => {
    expect(basicCredentials(header('u', 'a:b:c'))).toEqual({ user: 'u', password: 'a:b:c' });
    expect(basicCredentials(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
  });
});

describe('the bcrypt thread', () => {
  it('runs the rounds in a worker thread, started on the first check, and counts them', async () => {
    const t = thread();
    const auth = new BasicAuth(users, { compare: t.compare });
    expect(t.running).toBe(false);
    expect(await auth.verify(header('prometheus', 'nope'), CLIENT)).toBe('wrong');
    expect(await auth.verify(header('prometheus', PASSWORD), CLIENT)).toBe('ok');
    expect(t.running).toBe(true);
    expect(t.rounds).toBe(2);
  });

  it(`turns checks away once ${CHECK_QUEUE.waiting} rounds wait, instead of queueing without bound`, async () => {
    const t = thread();
    const auth = new BasicAuth(users, { compare: t.compare });
    const checks = Array.from({ length: CHECK_QUEUE.waiting + 6 }, (_, i) => auth.verify(header('prometheus', `wrong-${i}`), `198.51.100.${i}`));
    const outcomes = await Promise.all(checks);
    expect(outcomes.filter((o) => o === 'busy')).toHaveLength(5);
    expect(outcomes.filter((o) => o === 'wrong')).toHaveLength(CHECK_QUEUE.waiting + 1);
    // The queue drains: a right password gets through afterwards.
    expect(await auth.verify(header('prometheus', PASSWORD), CLIENT)).toBe('ok');
  });

  it('answers the checks a dead thread held "busy", never "ok", and starts a new thread for the next', async () => {
    const started: Worker[] = [];
    const t = thread(() => started[started.push(startBcryptWorker()) - 1]!);
    // Cost 12: the round is still running when the thread is killed.
    const slow = new Map([['prometheus', bcrypt.hashSync(PASSWORD, 12)]]);
    const auth = new BasicAuth(slow, { compare: t.compare });
    const held = [auth.verify(header('prometheus', PASSWORD), CLIENT), auth.verify(header('prometheus', PASSWORD), CLIENT)];
    await once(started[0]!, 'online'); // the round is sent, and runs for a good while yet
    await started[0]!.terminate();
    expect(await Promise.all(held)).toEqual(['busy', 'busy']);
    expect(t.running).toBe(false);
    expect(await new BasicAuth(users, { compare: t.compare }).verify(header('prometheus', PASSWORD), CLIENT)).toBe('ok');
    expect(started).toHaveLength(2);
  });

  it('keeps the event loop free during a flood: its delay stays under the cost of one round', async () => {
    // Cost 10 (~80 ms): one round fits in one of bcryptjs's 100 ms slices, so on the main thread it would hold the loop whole.
    const hash = bcrypt.hashSync(PASSWORD, 10);
    const started = performance.now();
    for (let i = 0; i < 3; i++) bcrypt.compareSync('x', hash);
    const round = (performance.now() - started) / 3;
    const t = thread();
    const auth = new BasicAuth(new Map([['prometheus', hash]]), { compare: t.compare });
    await auth.verify(header('prometheus', 'warm-up'), 'warm-up');
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    // 32 clients, each guessing every 10 ms (4 rounds each at most before its back-off). The sleep is a
    // guesser's pace: a throttled guess is answered without I/O, so a loop without it would hold the
    // event loop itself.
    let flooding = true;
    const flood = async (i: number) => {
      for (let n = 0; flooding; n++) {
        await auth.verify(header('prometheus', `guess-${n}`), `203.0.113.${i}`);
        await sleep(10);
      }
    };
    const floods = Promise.all(Array.from({ length: 32 }, (_, i) => flood(i)));
    // The flood lasts a dozen rounds of the thread, however fast this machine runs them.
    const enough = t.rounds + 12;
    try {
      await waitFor('a dozen rounds under the flood', async () => (t.rounds >= enough ? true : undefined), 30_000, { everyMs: 10 });
    } finally {
      flooding = false;
      await floods;
    }
    delay.disable();
    const p99 = delay.percentile(99) / 1e6;
    // A round on the main thread holds the loop for the whole round (p99 at or above it); a busy
    // shared machine delays the loop too, so the margin is a fifth of a round, not half.
    expect(p99, `event loop delay p99 ${p99.toFixed(1)} ms, one round ${round.toFixed(1)} ms`).toBeLessThan(round * 0.8);
  }, 60_000);
});

describe('failed attempts throttled per client', () => {
  const clock = () => {
    const c = { t: 0, now: () => c.t };
    return c;
  };
  const LIMIT = AUTH_THROTTLE.failures;

  it('answers a flood of wrong passwords from one client "throttled" without a round each, and lets another client in', async () => {
    const c = clock();
    const compare = counting();
    const auth = new BasicAuth(users, { compare, throttle: new AuthThrottle(AUTH_THROTTLE, c.now) });
    const outcomes = [];
    for (let i = 0; i < 50; i++) outcomes.push(await auth.verify(header('prometheus', `guess-${i}`), CLIENT));
    expect(outcomes.slice(0, LIMIT)).toEqual(Array(LIMIT).fill('wrong'));
    expect(outcomes.slice(LIMIT)).toEqual(Array(50 - LIMIT).fill('throttled'));
    expect(compare.rounds).toBe(LIMIT);
    expect(auth.retryAfter(CLIENT)).toBe(1);
    // Even the right password waits out the back-off from that address, without a round.
    expect(await auth.verify(header('prometheus', PASSWORD), CLIENT)).toBe('throttled');
    expect(await auth.verify(header('prometheus', PASSWORD), '192.0.2.2')).toBe('ok');
    expect(compare.rounds).toBe(LIMIT + 1);
  });

  it('never throttles cached credentials, even from the guessing address', async () => {
    const compare = counting();
    const auth = new BasicAuth(users, { compare, throttle: new AuthThrottle(AUTH_THROTTLE, clock().now) });
    expect(await auth.verify(header('prometheus', PASSWORD), CLIENT)).toBe('ok');
    for (let i = 0; i < 20; i++) await auth.verify(header('prometheus', `guess-${i}`), CLIENT);
    expect(await auth.verify(header('prometheus', PASSWORD), CLIENT)).toBe('ok');
    expect(auth.cached(header('prometheus', PASSWORD))).toBe('ok');
    expect(compare.rounds).toBe(1 + LIMIT);
  });

  it('counts rounds under way: concurrent guesses from one client cost at most the limit', async () => {
    const compare = counting();
    const auth = new BasicAuth(users, { compare, throttle: new AuthThrottle(AUTH_THROTTLE, clock().now) });
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => auth.verify(header('prometheus', `guess-${i}`), CLIENT)));
    expect(outcomes.filter((o) => o === 'wrong')).toHaveLength(LIMIT);
    expect(outcomes.filter((o) => o === 'throttled')).toHaveLength(40 - LIMIT);
    expect(compare.rounds).toBe(LIMIT);
  });

  it('doubles the back-off at each new block, up to its cap, and forgets a client after a success', async () => {
    const c = clock();
    const throttle = new AuthThrottle(AUTH_THROTTLE, c.now);
    const fail = (client = CLIENT) => throttle.begin(client)(false);
    const blocks = [];
    for (let b = 0; b < 12; b++) {
      for (let i = 0; i < LIMIT; i++) fail();
      blocks.push(throttle.retryAfter(CLIENT));
      c.t += blocks.at(-1)! * 1000;
      expect(throttle.retryAfter(CLIENT)).toBe(0);
    }
    expect(blocks).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
    for (let i = 0; i < LIMIT - 1; i++) fail();
    throttle.begin(CLIENT)(true);
    expect(throttle.size).toBe(0);
  });

  it(`tracks at most ${AUTH_THROTTLE.maxClients} clients, forgetting the oldest`, () => {
    const throttle = new AuthThrottle({ ...AUTH_THROTTLE, maxClients: 3 }, clock().now);
    for (const client of ['a', 'b', 'c', 'd']) for (let i = 0; i < LIMIT; i++) throttle.begin(client)(false);
    expect(throttle.size).toBe(3);
    expect(throttle.retryAfter('a')).toBe(0);
    expect(throttle.retryAfter('d')).toBe(1);
  });
});

describe('the verified-credentials cache across reloads', () => {
  it('keeps what users with an unchanged hash verified, and drops it for users removed or changed', async () => {
    const compare = counting();
    const both = new Map([...users, ['grafana', users.get('prometheus')!]]);
    const before = new BasicAuth(both, { compare });
    expect(await before.verify(header('prometheus', PASSWORD), CLIENT)).toBe('ok');
    expect(await before.verify(header('grafana', PASSWORD), CLIENT)).toBe('ok');
    const same = new BasicAuth(new Map(both), { compare, previous: before });
    expect(same.cached(header('prometheus', PASSWORD))).toBe('ok');
    expect(same.cached(header('grafana', PASSWORD))).toBe('ok');
    // grafana's hash changed, prometheus was removed then added back with the same hash: only
    // the unchanged, present user keeps its verification.
    const changed = new BasicAuth(new Map([['grafana', bcrypt.hashSync(PASSWORD, 4)]]), { compare, previous: same });
    expect(changed.cached(header('grafana', PASSWORD))).toBeUndefined();
    const readded = new BasicAuth(new Map(both), { compare, previous: changed });
    expect(readded.cached(header('prometheus', PASSWORD))).toBeUndefined();
    expect(compare.rounds).toBe(2);
  });
});

describe('the lanes a check waits in', () => {
  it('puts a client without failures in the clean lane, after a failure in the suspect one, after a success in the trusted one', () => {
    const throttle = new AuthThrottle(AUTH_THROTTLE, () => 0);
    expect(throttle.lane(CLIENT)).toBe('clean');
    throttle.begin(CLIENT)(false);
    expect(throttle.lane(CLIENT)).toBe('suspect');
    throttle.begin(CLIENT)(true);
    expect(throttle.lane(CLIENT)).toBe('trusted');
    throttle.begin(CLIENT)(false);
    expect(throttle.lane(CLIENT)).toBe('suspect');
    // A round under way is not a failure.
    throttle.begin('192.0.2.9');
    expect(throttle.lane('192.0.2.9')).toBe('clean');
  });

  it('serves a right password from a new address while wrong ones from many failing addresses keep the bcrypt thread full', async () => {
    const t = thread();
    const throttle = new AuthThrottle(AUTH_THROTTLE);
    const auth = new BasicAuth(users, { compare: t.compare, throttle });
    const guessers = Array.from({ length: 200 }, (_, i) => `198.51.100.${i}`);
    for (const g of guessers) throttle.begin(g)(false);
    // Far more guesses than the queue holds, all from addresses that failed lately, sent first.
    const guesses = guessers.map((g, i) => auth.verify(header('prometheus', `guess-${i}`), g));
    const scraper = auth.verify(header('prometheus', PASSWORD), '192.0.2.200');
    expect(await scraper).toBe('ok');
    const outcomes = await Promise.all(guesses);
    expect(outcomes.filter((o) => o === 'busy').length).toBeGreaterThan(guessers.length - CHECK_QUEUE.waiting);
  });
});
