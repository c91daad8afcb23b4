import { describe, expect, it } from 'vitest';
import { defineArea, type Area } from '../../../src/areas/area.js';
import { family, type AnyFamily } from '../../../src/metrics/family.js';

const gauge = (name: string): AnyFamily => family<never>({ name, help: name, type: 'gauge', area: 'scheduler', labels: ['target'], samples: () => [] });
const members = gauge('scheduler_agent_members');
const servers = gauge('scheduler_agent_known_servers');
const area = (families: AnyFamily[], feeds: AnyFamily[]): Area<'agents'> => ({
  kind: 'agents',
  endpoints: [
    { method: 'GET', path: '/v1/agent/members', feeds: [members] },
    { method: 'GET', path: '/v1/agent/servers', feeds },
  ],
  families,
  jobs: () => [],
});

describe('defineArea', () => {
  it('takes an area whose endpoints feed only families it exports, unchanged', () => {
    const a = area([members, servers], [servers]);
    expect(defineArea(a)).toBe(a);
  });

  it('refuses an endpoint that feeds a family the area does not export, naming both', () => {
    expect(() => defineArea(area([members], [servers]))).toThrow(
      'area agents: /v1/agent/servers feeds scheduler_agent_known_servers, which the area does not export',
    );
  });

  it('tells a family from another of the same name by its name, not its object', () => {
    expect(() => defineArea(area([members, gauge('scheduler_agent_known_servers')], [servers]))).not.toThrow();
  });
});
