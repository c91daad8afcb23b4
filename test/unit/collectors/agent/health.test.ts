import { describe, expect, it } from 'vitest';
import { healthFamilies } from '../../../../src/collectors/agent/health.js';
import { agentHealthResponse } from '../../../../src/collectors/agent/health.js';
import { parseBody } from '../../../../src/upstream/parse.js';
import { series, seriesOf } from '../../../helpers/exposition.js';
import { fixture } from '../../../helpers/fixtures.js';
import { parseFailure, renderSamples } from '../../../helpers/render.js';

const parse = (body: unknown) => parseBody(agentHealthResponse, body, 'agent/health');
const samples = (body: unknown) => renderSamples(healthFamilies, parse(body), { target: 'a1' });
const ok = (role: string) => series('scheduler_agent_health_ok', { target: 'a1', role });

describe('GET /v1/agent/health', () => {
  it('reports the server part of a healthy server-only agent, and no client part', () => {
    const s = samples(fixture('agent/health-server.json'));
    expect(s.get(ok('server'))).toBe(1);
    expect(s.has(ok('client'))).toBe(false);
  });

  it('reports only the client part of a client-only agent (it omits server)', () => {
    const s = samples(fixture('agent/health-client-only.json'));
    expect(s.get(ok('client'))).toBe(1);
    expect(seriesOf(s, 'scheduler_agent_health_ok').size).toBe(1);
  });

  it('reads the body of an unhealthy agent (sent with status 500) as data: the failing part is 0', () => {
    const s = samples(fixture('agent/health-unhealthy-both.json'));
    expect(s.get(ok('server'))).toBe(0);
    expect(s.get(ok('client'))).toBe(1);
  });

  it('accepts ok as a "true"/"false" string and a missing message', () => {
    expect(samples({ client: { ok: 'false' } }).get(ok('client'))).toBe(0);
  });
});

describe('a health part that cannot be read', () => {
  it('drops only that role: the other is read', () => {
    const s = samples({ client: { ok: 'maybe' }, server: { ok: true, message: 'ok' } });
    expect(s.has(ok('client'))).toBe(false);
    expect(s.get(ok('server'))).toBe(1);
  });

  it.each([
    ['ok not a boolean', { server: { ok: 'maybe', message: 'x' } }],
    ['ok missing', { client: { message: 'ok' } }],
    ['ok null', { client: { ok: null, message: 'ok' } }],
  ])('keeps an answer whose only part has %s: the agent answered, only that role goes unsaid', (_what, body) => {
    const s = samples(body);
    expect(seriesOf(s, 'scheduler_agent_health_ok').size).toBe(0);
  });
});

describe('health bodies that do not fit', () => {
  it.each([
    ['neither part (another JSON error)', { error: 'rpc error' }, 'expected a client or a server part'],
    ['its only part not an object', { client: 'ok' }, 'expected a client or a server part'],
    ['an empty body', undefined, '(body)'],
  ])('%s is a schema failure naming the field', (_what, body, field) => {
    const err = parseFailure(() => parse(body));
    expect(err.reason).toBe('schema');
    expect(err.message).toContain('agent/health: unexpected response');
    expect(err.message).toContain(field);
  });
});
