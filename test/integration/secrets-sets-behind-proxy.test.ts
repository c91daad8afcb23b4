import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { parseExposition, series, seriesOf } from '../helpers/exposition.js';
import { startNginx, type Nginx } from '../helpers/nginx.js';
import { runSilentRulesTest } from '../helpers/rules-on-scrape.js';
import { NEVER } from '../helpers/schedules.js';

/**
 * Two secrets clusters behind one real nginx under different path prefixes (/a/ and /b/), so they
 * share a scheme, host and port: each is the primary of its own replication sets (performance, with
 * a secondary that knows its primary by the proxy's address, and DR), and vigil reaches both
 * primaries through the proxy. Nothing links the two, so no set holds two primaries and the
 * shipped rules page no split brain.
 */
let nginx: Nginx;
const sims: SecretsSimulator[] = [];
let vigil: TestDaemon;
let text = '';

/** One simulator per site: its primary of both kinds, and a performance secondary. */
const site = (primary: string) =>
  startSecretsSimulator(
    {
      clusters: [{ name: primary }, { name: `${primary}-pr` }],
      replication: [
        { kind: 'performance', primary, secondaries: [`${primary}-pr`] },
        { kind: 'dr', primary, secondaries: [] },
      ],
    },
    { walTickMs: 3_600_000 },
  );

/** Points a site's secondary at its primary again, telling it the primary's API address behind the proxy. */
async function knowPrimaryAt(sim: SecretsSimulator, primary: string, apiAddr: string): Promise<void> {
  const secondary = sim.cluster(`${primary}-pr`);
  const res = await fetch(`${secondary.url}/v1/sys/replication/performance/secondary/update-primary`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-secrets-token': secondary.rootToken },
    body: JSON.stringify({ update_primary_addrs: [`https://${primary}:8201`], primary_api_addr: apiAddr }),
  });
  if (res.status >= 300) throw new Error(`update-primary: ${res.status} ${await res.text()}`);
}

beforeAll(async () => {
  const [east, west] = [await site('east'), await site('west')];
  sims.push(east, west);
  nginx = await startNginx({ '/a/': `${east.cluster('east').url}/`, '/b/': `${west.cluster('west').url}/` });
  await knowPrimaryAt(east, 'east', `${nginx.url}/a`);
  await knowPrimaryAt(west, 'west', `${nginx.url}/b/`);
  const t = (name: string, address: string) => `  - { name: ${name}, address: "${address}", timeout: 2s, schedule: "${NEVER}" }\n`;
  vigil = await startTestDaemon(
    `secrets:\n${t('east', `${nginx.url}/a`)}${t('west', `${nginx.url}/b`)}${t('east-pr', east.cluster('east-pr').url)}${t('west-pr', west.cluster('west-pr').url)}`,
  );
  await vigil.collect();
  text = await vigil.scrape();
}, 60_000);

afterAll(async () => {
  await vigil?.close();
  await nginx?.stop();
  await Promise.all(sims.map((s) => s.close()));
});

describe('two primaries of different sets behind one proxy', () => {
  it('are polled through the proxy, each under its own prefix', () => {
    const m = parseExposition(text);
    for (const target of ['east', 'west']) {
      expect(m.get(series('secrets_replication_up', { target, kind: 'performance' })), `${target}\n${nginx.errors()}`).toBe(1);
      expect(m.get(series('secrets_replication_up', { target, kind: 'dr' })), target).toBe(1);
    }
  });

  it('are two sets of each kind, each with one primary and its own secondary', () => {
    const m = parseExposition(text);
    const sets = [...seriesOf(m, 'secrets_replication_set_primaries')];
    expect(sets.filter(([k]) => k.includes('kind="performance"')).map(([, v]) => v)).toEqual([1, 1]);
    expect(sets.filter(([k]) => k.includes('kind="dr"')).map(([, v]) => v)).toEqual([1, 1]);
    const perfSets = new Map<string, string[]>();
    for (const k of seriesOf(m, 'secrets_replication_set_member_info').keys()) {
      if (!k.includes('kind="performance"')) continue;
      const set = /replication_set="([^"]+)"/.exec(k)![1]!;
      perfSets.set(set, [...(perfSets.get(set) ?? []), /target="([^"]+)"/.exec(k)![1]!].sort());
    }
    expect([...perfSets.values()].sort()).toEqual([
      ['east', 'east-pr'],
      ['west', 'west-pr'],
    ]);
    for (const target of ['east-pr', 'west-pr']) {
      expect(m.get(series('secrets_replication_secondary_primary_watched', { target, kind: 'performance' })), target).toBe(1);
    }
  });

  it('page no split brain, nor anything else, by the shipped rules', () => {
    const r = runSilentRulesTest(text);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  }, 180_000);
});
