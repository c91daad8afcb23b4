import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionOffloadPool } from '../../../../src/collectors/decoding.js';
import { teamsCollector } from '../../../../src/collectors/teams/collector.js';
import { parseConfig } from '../../../../src/config/load.js';
import { jobContext } from '../../../../src/jobs/job-context.js';
import { fixture } from '../../../helpers/fixtures.js';
import { NEVER } from '../../../helpers/schedules.js';
import { tempDir } from '../../../helpers/temp-dir.js';

/** A teams target's job against a loopback service of three pages (five teams, two of them breaking a rule). */
let server: http.Server;
let address: string;
const offload = collectionOffloadPool(1);
const tokenFile = join(tempDir('vigil-teams-jobs-'), 'token');
writeFileSync(tokenFile, 'tok\n');

beforeAll(async () => {
  const files = ['page-1-of-3.json', 'page-2-of-3.json', 'page-3-of-3.json'];
  server = http.createServer((req, res) => {
    const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page[number]') ?? 1);
    res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end(JSON.stringify(fixture(`teams/${files[page - 1] ?? 'missing'}`)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await offload.close();
  server.close();
});

async function runTwice(maxTeams: number) {
  const warnings: Array<{ fields: object; msg: string }> = [];
  const log = pino({ level: 'silent' });
  log.warn = ((fields: object, msg: string) => void warnings.push({ fields, msg })) as typeof log.warn;
  const ctx = { ...jobContext(offload), log };
  const config = parseConfig(
    `teams:\n  - { name: acme, address: "${address}", organization: acme, token_file: ${tokenFile}, schedule: "${NEVER}", page_size: 2, max_teams: ${maxTeams} }\n`,
    'vigil.yml',
    {},
  );
  const [job] = teamsCollector.jobs(config.teams, ctx, undefined);
  for (let i = 0; i < 2; i++) {
    const parts = await job!.run(AbortSignal.timeout(10_000));
    expect(parts.find((p) => p.part === 'teams')?.error).toBeUndefined();
  }
  await Promise.all(ctx.clients.map((c) => c.close()));
  return warnings;
}

describe('a teams target past max_teams', () => {
  it('says so once per target and config, with the counts, not at every poll', async () => {
    expect(await runTwice(2)).toEqual([
      {
        fields: { target: 'acme', teams: 5, max_teams: 2, untracked: 3 },
        msg: 'organization has more teams than max_teams: teams beyond it are counted without series of their own (raise max_teams to keep them)',
      },
    ]);
  });

  it('says nothing while the organization fits', async () => {
    expect(await runTwice(5)).toEqual([]);
  });
});
