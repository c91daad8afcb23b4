import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCollector } from '../../../src/collectors/collector.js';
import { endpoint, offloaded, type Endpoint } from '../../../src/collectors/endpoint.js';
import { call, derive, stepWhen, type Plan } from '../../../src/collectors/plan.js';
import { stepsFor } from '../../../src/collectors/run-plan.js';
import { family, type AnyFamily } from '../../../src/metrics/family.js';
import type { UpstreamClient } from '../../../src/upstream/client.js';

const gauge = (name: string): AnyFamily => family<never>({ name, help: name, type: 'gauge', section: 'agent', labels: ['target'], samples: () => [] });
const members = gauge('scheduler_agent_members');
const servers = gauge('scheduler_agent_known_servers');
const expected = gauge('scheduler_agent_expected_servers');
const lag = gauge('scheduler_agent_raft_lag');

/** An endpoint any test call can make (what its calls share is never read). */
type Declared = Endpoint<unknown, string, unknown, unknown, never, string>;
const declare = (id: string, families: AnyFamily[], key?: string): Declared =>
  endpoint({
    id,
    method: 'GET',
    path: `/v1/${id}`,
    schema: z.unknown(),
    families,
    ...(key ? { switch: { key, default: false, help: `${key}: what it costs` } } : {}),
  }) as unknown as Declared;

const target = z.strictObject({ name: z.string(), expected: z.number().optional() });
type T = z.output<typeof target>;
const plan = (...steps: Plan<T, { client: UpstreamClient }>['steps']): Plan<T, { client: UpstreamClient }> => ({
  job: 'scheduler_agent',
  schedule: { of: () => '* * * * * *', key: 'schedule' },
  steps,
});
const collector = (plans: Plan<T, { client: UpstreamClient }>[], derived: AnyFamily[] = []) =>
  defineCollector({ kind: 'agents', target, plans, derived, call: () => () => ({ client: {} as UpstreamClient }), state: () => undefined });

describe('defineCollector', () => {
  const health = declare('agent/health', []);
  const m = declare('agent/members', [members], 'members');
  const s = declare('agent/servers', [servers], 'servers');

  it('takes its endpoints from its plans, once each in step order, and its families from their feeds, the derived steps, then the families across targets', () => {
    const c = collector(
      [plan(call(health), call(m), derive({ name: 'expected', families: [expected as never], value: (t: T) => t.expected as never })), plan(call(s), call(m))],
      [lag],
    );
    expect(c.endpoints.map((e) => e.id)).toEqual(['agent/health', 'agent/members', 'agent/servers']);
    expect(c.families.map((f) => f.name)).toEqual([members.name, servers.name, expected.name, lag.name]);
    expect(c.derived.map((f) => f.name)).toEqual([expected.name, lag.name]);
  });

  it('gives the target a switch per optional endpoint, with its default, and still refuses unknown keys', () => {
    const c = collector([plan(call(health), call(m), call(s))]);
    expect(c.target.parse({ name: 'a' })).toEqual({ name: 'a', members: false, servers: false });
    expect(c.target.parse({ name: 'a', members: true })).toMatchObject({ members: true });
    expect(c.target.safeParse({ name: 'a', health: true }).success).toBe(false);
    expect(c.target.safeParse({ name: 'a', servers: 'yes' }).success).toBe(false);
  });

  it('refuses two endpoints declared under one id, naming it', () => {
    expect(() => collector([plan(call(m)), plan(call(declare('agent/members', [members])))])).toThrow(
      'collector agents: two endpoints are declared agent/members',
    );
  });

  it('refuses two families of one name', () => {
    expect(() => collector([plan(call(m), call(declare('agent/other', [gauge('scheduler_agent_members')])))])).toThrow(
      'collector agents: two families are named scheduler_agent_members',
    );
  });

  it('refuses an endpoint whose decoding task no worker thread could run', () => {
    const stranger = {
      ...declare('agent/odd', []),
      offload: offloaded({ task: (x: { body: Uint8Array }) => x.body.length, from: 1, input: (body) => ({ body }) }),
    };
    expect(() => collector([plan(call(stranger as unknown as Declared))])).toThrow('a decoding task that src/collectors/decoding.ts does not list');
  });
});

describe('the steps a target takes', () => {
  const health = call(declare('agent/health', []));
  const autopilot = call(declare('agent/autopilot', [], 'autopilot'));
  const token = call(declare('agent/token', []), { on: { test: (t: { token?: string }) => t.token !== undefined, says: 'with a token_file' } });
  const changes = derive({ name: 'leader_changes', after: [autopilot], families: [expected], value: () => 1 as never });
  const p = { job: 'j', schedule: { of: () => '', key: 'schedule' }, steps: [health, token, autopilot, changes] } as unknown as Plan;

  it('are those switched on, whose condition on the target holds, less those after a step it does not take', () => {
    expect(stepsFor(p, { autopilot: true, token: 't' })).toEqual([health, token, autopilot, changes]);
    expect(stepsFor(p, { autopilot: false })).toEqual([health]);
  });

  it('say when their endpoint is called, from the plan alone', () => {
    expect(stepWhen(p, token)).toBe('each run of `j` (`schedule`), with a token_file');
    expect(stepWhen(p, autopilot)).toBe('each run of `j` (`schedule`), behind its switch');
  });
});
