import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJobs, collectorStates } from '../../../src/collectors/index.js';
import { collectionOffloadPool } from '../../../src/collectors/decoding.js';
import { parseConfig } from '../../../src/config/load.js';
import { jobContext } from '../../../src/jobs/job-context.js';
import { aclTokenSelfResponse } from '../../../src/collectors/agent/token.js';
import { parseBody } from '../../../src/upstream/parse.js';
import { tokenLookupSelfResponse } from '../../../src/collectors/secrets/token-lookup-self.js';
import { CorpusServer, outcomeOf, realAnswer } from '../../helpers/real-corpus.js';
import { NEVER } from '../../helpers/schedules.js';

/** vigil's own tokens: their expiry is exported, the tokens themselves never are. */
const server = new CorpusServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

const SECRETS = realAnswer('secrets/token-lookup-self-docs.json');
const AGENT = realAnswer('agent/token-self-expiring-1.4.json');

describe('the token and its accessor', () => {
  it.each([
    [SECRETS, ['cf64a70f-3a12-3f6c-791d-6cef6d390eed', '8609694a-cdbc-db9b-d345-e782dbb562ed']],
    [AGENT, ['8176afd3-772d-0b71-8f85-7fa5d903e9d4', 'aa534e09-6a07-0a45-2295-a7f77063d429']],
  ])('appear in no series of $endpoint', async (answer, secrets) => {
    const s = await server.scrape(answer);
    expect(s.text).not.toBe('');
    for (const secret of secrets) expect(s.text).not.toContain(secret);
  });

  it('are not kept by the schemas, so no later code can show them', () => {
    expect(JSON.stringify(parseBody(tokenLookupSelfResponse, SECRETS.body, 'x'))).not.toMatch(/cf64a70f|8609694a/);
    expect(JSON.stringify(parseBody(aclTokenSelfResponse, AGENT.body, 'x'))).not.toMatch(/8176afd3|aa534e09/);
  });
});

describe('an expiry that is not one', () => {
  it.each([
    ['the zero time', '0001-01-01T00:00:00Z'],
    ['null', null],
    ['not a time', 'never'],
  ])('ExpirationTime %s exports no expiry', async (_what, value) => {
    const s = await server.scrape({ endpoint: 'agent/token', body: { ...(AGENT.body as object), ExpirationTime: value } });
    expect(outcomeOf(s.outcome)).toBe('up');
    expect(s.series.has('scheduler_agent_token_expiry_timestamp_seconds')).toBe(false);
  });

  it('a lookup without expire_time exports neither the expiry nor the renewable flag', async () => {
    const body = { data: { ...(SECRETS.body as { data: object }).data, expire_time: null, ttl: 0 } };
    const s = await server.scrape({ endpoint: 'secrets/token-lookup-self', body });
    expect([...s.series.keys()]).toEqual(['secrets_token_lookup_up']);
  });
});

describe('an expired or unknown ACL token', () => {
  // The agent refuses an expired token as it refuses a revoked one: a failure for vigil's operator, never "not applicable".
  it.each([['ACL token expired'], ['ACL token not found']])('answered 403 "%s" is down with http_4xx', async (text) => {
    const s = await server.scrape({ endpoint: 'agent/token', status: 403, contentType: 'text/plain', text });
    expect(outcomeOf(s.outcome)).toBe('down:http_4xx');
    expect(s.series.get('scheduler_agent_endpoint_up')).toBe(0);
  });

  // Servers from 1.10.1 answer 500 where older ones answered 403: still vigil's token, never the agent down (SchedulerAgentDown reads http_5xx).
  it.each([['agent/token'], ['agent/members']])('answered 500 "rpc error: ACL token expired" on %s is down with http_4xx, not http_5xx', async (endpoint) => {
    const s = await server.scrape({ endpoint, status: 500, contentType: 'text/plain', text: 'rpc error: ACL token expired' });
    expect(outcomeOf(s.outcome)).toBe('down:http_4xx');
    expect(s.outcome.error?.message).toMatch(/vigil's own token is refused/);
  });

  it('on the node listing, reads as the 403 older servers answered: not applicable, never the agent down', async () => {
    const expired = await server.scrape({ endpoint: 'agent/nodes', status: 500, contentType: 'text/plain', text: 'rpc error: ACL token expired' });
    const refused = await server.scrape({ endpoint: 'agent/nodes', status: 403, contentType: 'text/plain', text: 'Permission denied' });
    expect(outcomeOf(expired.outcome)).toBe(outcomeOf(refused.outcome));
  });

  it('an agent failing with another 500 is still down with http_5xx', async () => {
    const s = await server.scrape({ endpoint: 'agent/token', status: 500, contentType: 'text/plain', text: 'rpc error: No cluster leader' });
    expect(outcomeOf(s.outcome)).toBe('down:http_5xx');
  });
});

describe('a secrets token looked up on a DR secondary', () => {
  it('is not applicable: a DR secondary answers every authenticated path 400 "path disabled"', async () => {
    const s = await server.scrape({
      endpoint: 'secrets/token-lookup-self',
      status: 400,
      body: { errors: ['path disabled in replication DR secondary mode'] },
    });
    expect(outcomeOf(s.outcome)).toBe('not_applicable');
    expect(s.series.size).toBe(0);
  });

  it('another 400 is still a failure', async () => {
    const s = await server.scrape({ endpoint: 'secrets/token-lookup-self', status: 400, body: { errors: ['missing client token'] } });
    expect(outcomeOf(s.outcome)).toBe('down:http_4xx');
  });
});

describe('a target without a token_file', () => {
  const partsOf = async (yaml: string) => {
    const ctx = jobContext(collectionOffloadPool(1));
    const jobs = buildJobs(parseConfig(yaml, 'test'), ctx, collectorStates());
    const outcomes = (await Promise.all(jobs.map((j) => j.run(AbortSignal.timeout(5_000))))).flat();
    await Promise.all(ctx.clients.map((c) => c.close()));
    return outcomes.map((o) => o.part);
  };
  // Port 9 (discard) on loopback: refused at once, so every part fails fast and is still listed.
  const address = 'http://127.0.0.1:9';

  it('looks up no secrets token', async () => {
    expect(await partsOf(`secrets:\n  - { name: s, address: "${address}", schedule: "${NEVER}", replication_kinds: [dr] }\n`)).not.toContain('token');
  });

  it('asks no agent for its ACL token, switch on or not', async () => {
    expect(await partsOf(`agents:\n  - { name: a, address: "${address}", schedule: "${NEVER}", token: true }\n`)).not.toContain('token');
  });
});
