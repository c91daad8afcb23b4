import { describe, expect, it } from 'vitest';
import { serversFamilies } from '../../../../src/collectors/agent/servers.js';
import { serversEndpoint } from '../../../../src/collectors/agent/servers.js';
import { agentServersResponse } from '../../../../src/collectors/agent/servers.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';

const serversNotApplicable = (e: UpstreamError) => serversEndpoint.notApplicable?.test(e);
import { parseBody } from '../../../../src/upstream/parse.js';
import { series } from '../../../helpers/exposition.js';
import { fixture } from '../../../helpers/fixtures.js';
import { parseFailure, renderSamples } from '../../../helpers/render.js';

const parse = (body: unknown) => parseBody(agentServersResponse, body, 'agent/servers');
const known = (body: unknown) => renderSamples(serversFamilies, parse(body), { target: 'c1' }).get(series('scheduler_agent_known_servers', { target: 'c1' }));

describe('GET /v1/agent/servers', () => {
  it('counts the bare ip:port array', () => {
    expect(known(fixture('agent/servers-client.json'))).toBe(3);
  });

  it('reads an empty list and Go’s nil list (null) as 0 known servers', () => {
    expect(known([])).toBe(0);
    expect(known(null)).toBe(0);
  });

  it('is not applicable on an agent without a client part (501), but a 500 or a 403 is a failure', () => {
    expect(serversNotApplicable(new UpstreamError('http_5xx', 'agent/servers: HTTP 501: Invalid method', 501))).toBe(true);
    expect(serversNotApplicable(new UpstreamError('http_5xx', 'agent/servers: HTTP 500: rpc error', 500))).toBe(false);
    expect(serversNotApplicable(new UpstreamError('http_4xx', 'agent/servers: HTTP 403: Permission denied', 403))).toBe(false);
  });

  it.each([
    ['an object instead of the array', { servers: [] }, '(body)'],
    ['an entry that is not a string', ['10.0.1.10:4647', 4647], '1: '],
  ])('%s is a schema failure naming the field', (_what, body, field) => {
    const err = parseFailure(() => parse(body));
    expect(err.reason).toBe('schema');
    expect(err.message).toContain(`agent/servers: unexpected response: ${field}`);
  });
});
