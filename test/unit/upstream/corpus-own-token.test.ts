import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorpusServer, outcomeOf, realAnswer } from '../../helpers/real-corpus.js';

/**
 * vigil's own credential refused, as each version of each service answers it: an expired, revoked or
 * unknown token. It is vigil's operator's to fix (a warning), never the upstream down: no answer
 * here may read as a reason SchedulerAgentDown or SecretsServiceDown pages for.
 */
const UPSTREAM_DOWN = ['down:connect', 'down:timeout', 'down:http_5xx'];
const REFUSED = [
  // The cluster agent: 403 "Permission denied" and "ACL token not found" before 1.10.1, 500 "rpc error: ACL token expired" from 1.10.1.
  'agent/self-403-acl.json',
  'agent/self-403-token-not-found.json',
  'agent/self-500-acl-token-expired-1.10.1.json',
  'agent/token-self-403-1.10.1-issue-25937.json',
  'agent/token-self-500-acl-token-expired-1.10.1.json',
  // The secrets service: 403 "permission denied"; a DR secondary's 400 "path disabled" to the lookup of the token.
  'secrets/token-lookup-self-403-permission-denied.json',
  'secrets/token-lookup-self-400-dr-secondary.json',
];

const server = new CorpusServer();
const outcomes = new Map<string, { outcome: string; message?: string }>();

beforeAll(async () => {
  await server.start();
  for (const file of REFUSED) {
    const { outcome } = await server.scrape(realAnswer(file));
    outcomes.set(file, { outcome: outcomeOf(outcome), ...(outcome.error ? { message: outcome.error.message } : {}) });
  }
}, 60_000);
afterAll(() => server.stop());

describe.each(REFUSED)('vigil’s own token refused: %s', (file) => {
  it('is vigil’s token failure, not the upstream down', () => {
    const got = outcomes.get(file);
    expect(UPSTREAM_DOWN, got?.message).not.toContain(got?.outcome);
    expect(got?.outcome).toBe(realAnswer(file).outcome);
  });
});
