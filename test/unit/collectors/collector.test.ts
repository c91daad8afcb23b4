import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCollector, type Collector } from '../../../src/collectors/collector.js';
import { endpoint, switchFields, switchedOn, type AnyEndpoint } from '../../../src/collectors/endpoint.js';
import { family, type AnyFamily } from '../../../src/metrics/family.js';

const gauge = (name: string): AnyFamily => family<never>({ name, help: name, type: 'gauge', section: 'agent', labels: ['target'], samples: () => [] });
const members = gauge('scheduler_agent_members');
const servers = gauge('scheduler_agent_known_servers');
const expected = gauge('scheduler_agent_expected_servers');

const declare = (id: string, families: AnyFamily[], key?: string): AnyEndpoint =>
  endpoint({
    id,
    method: 'GET',
    path: `/v1/${id}`,
    schema: z.unknown(),
    when: 'every run',
    part: id,
    fetch: async () => undefined as never,
    families,
    ...(key ? { switch: { key, default: false, help: key } } : {}),
  }) as AnyEndpoint;

const collector = (families: AnyFamily[], endpoints: AnyEndpoint[], derived: AnyFamily[] = []): Collector<'agents'> => ({
  kind: 'agents',
  target: z.unknown(),
  endpoints,
  families,
  derived,
  state: () => undefined,
  jobs: () => [],
});

describe('defineCollector', () => {
  it('takes a collector whose endpoints feed every family it exports, save those declared derived, unchanged', () => {
    const c = collector([members, servers, expected], [declare('agent/members', [members]), declare('agent/servers', [servers])], [expected]);
    expect(defineCollector(c)).toBe(c);
  });

  it('refuses an endpoint that feeds a family the collector does not export, naming both', () => {
    expect(() => defineCollector(collector([members], [declare('agent/members', [members]), declare('agent/servers', [servers])]))).toThrow(
      'collector agents: agent/servers feeds scheduler_agent_known_servers, which the collector does not export',
    );
  });

  it('refuses a family that no endpoint feeds and that is not declared derived', () => {
    expect(() => defineCollector(collector([members, expected], [declare('agent/members', [members])]))).toThrow(
      'collector agents: scheduler_agent_expected_servers is fed by no endpoint and not declared derived',
    );
  });

  it('refuses an endpoint declared twice', () => {
    expect(() => defineCollector(collector([members], [declare('agent/members', [members]), declare('agent/members', [members])]))).toThrow(
      'collector agents: endpoint agent/members is declared twice',
    );
  });

  it('tells a family from another of the same name by its name, not its object', () => {
    expect(() =>
      defineCollector(collector([members, gauge('scheduler_agent_known_servers')], [declare('a', [members]), declare('b', [servers])])),
    ).not.toThrow();
  });
});

describe('the switches of optional endpoints', () => {
  const endpoints = [declare('agent/health', []), declare('agent/members', [], 'members'), declare('agent/host', [], 'host')];

  it('become boolean config keys with the declared default, and nothing else', () => {
    const schema = z.strictObject(switchFields(endpoints));
    expect(schema.parse({})).toEqual({ members: false, host: false });
    expect(schema.parse({ host: true })).toEqual({ members: false, host: true });
    expect(schema.safeParse({ health: true }).success).toBe(false);
    expect(schema.safeParse({ host: 'yes' }).success).toBe(false);
  });

  it('select the endpoints a target calls: those without a switch, and those switched on', () => {
    expect(switchedOn(endpoints, { members: false, host: true }).map((e) => e.id)).toEqual(['agent/health', 'agent/host']);
  });
});
