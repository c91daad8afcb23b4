import type { CollectSummary } from '../../src/daemon.js';
import { setFaults, vigilConfig, type Estate, type Without } from './estate.js';
import type { Row } from './report.js';
import type { Vigil } from './start-vigil.js';

/**
 * What each endpoint of the estate costs a collection, as a share of it: one vigil, every answer
 * changed (the `vary` fault: each answer takes the whole path), its config reloaded without one
 * endpoint (or collector) at a time. An endpoint's share is what leaving it out saves, against the
 * whole estate measured before and after the variants (the machine drifts; both are reported). A
 * reload builds new jobs, so each variant's first collection is left uncounted.
 *
 *   npm run bench -- --size=1M --collections-only --shares
 */
interface Variant {
  name: string;
  only?: ReadonlySet<string>;
  without?: Without;
}

const VARIANTS: readonly Variant[] = [
  { name: 'secrets: the node poll (health, seal, HA status, autopilot, leader)', without: { secretsNodes: true } },
  { name: 'secrets: the token (lookup-self, the audited request)', without: { secretsToken: true } },
  { name: 'secrets: every endpoint', only: new Set(['agents', 'teams']) },
  { name: 'agents: gossip members', without: { members: true } },
  { name: 'agents: the client-node listing', without: { nodes: true } },
  { name: 'agents: jobs, evaluations, deployments', without: { workload: true } },
  { name: 'agents: every endpoint', only: new Set(['secrets', 'teams']) },
  { name: 'teams: every endpoint', only: new Set(['secrets', 'agents']) },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function measured(vigil: Vigil, collections: number): Promise<CollectSummary[]> {
  await vigil.collect();
  const runs: CollectSummary[] = [];
  for (let i = 0; i < collections; i++) runs.push(await vigil.collect());
  return runs;
}

/** One row per variant: the collection's CPU without it and the share of the whole that saves. */
export async function endpointShares(vigil: Vigil, estate: Estate, size: string, collections = 2): Promise<Row[]> {
  const whole = (label: string, runs: CollectSummary[]): Row => ({
    size,
    'left out': label,
    'collection CPU s': median(runs.map((r) => r.cpu_seconds)).toFixed(2),
    requests: median(runs.map((r) => r.upstream_requests)),
    series: median(runs.map((r) => r.series)),
  });
  await setFaults(estate, { vary: true });
  try {
    const before = await measured(vigil, collections);
    const rows: Row[] = [whole('nothing (before)', before)];
    const perVariant: Array<{ v: Variant; runs: CollectSummary[] }> = [];
    for (const v of VARIANTS) {
      await vigil.reconfigure((listen) => vigilConfig(estate, listen, undefined, v.only, v.without));
      perVariant.push({ v, runs: await measured(vigil, collections) });
    }
    await vigil.reconfigure((listen) => vigilConfig(estate, listen));
    const after = await measured(vigil, collections);
    const all = median([...before, ...after].map((r) => r.cpu_seconds));
    for (const { v, runs } of perVariant) {
      const cpu = median(runs.map((r) => r.cpu_seconds));
      rows.push({ ...whole(v.name, runs), share: `${Math.round(((all - cpu) / all) * 1000) / 10} %` });
    }
    rows.push(whole('nothing (after)', after));
    return rows;
  } finally {
    await setFaults(estate, undefined);
  }
}
