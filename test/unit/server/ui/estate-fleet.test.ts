import { describe, expect, it } from 'vitest';
import { buildEstate } from '../../../../src/server/estate.js';
import { renderEstate } from '../../../../src/server/ui/estate-view.js';

/** An agent's region on the estate page: autopilot's quorum, client nodes per pool, and vigil's tokens near their expiry. */

const NOW = Date.parse('2026-11-23T10:00:00Z');
const NOW_S = NOW / 1000;
const DAY = 86_400;
const EVIL = '<img src=x onerror=alert(1)>';

const SNAPSHOT = `scheduler_agent_up{target="a1"} 1
scheduler_agent_autopilot_healthy{target="a1"} 0
scheduler_agent_autopilot_failure_tolerance{target="a1"} 0
scheduler_agent_autopilot_voters{target="a1"} 3
scheduler_nodes{target="a1",datacenter="dc1",node_pool="web${EVIL}",node_class="",status="ready",eligibility="eligible",drain="false"} 4
scheduler_nodes{target="a1",datacenter="dc2",node_pool="web${EVIL}",node_class="",status="ready",eligibility="eligible",drain="false"} 1
scheduler_nodes{target="a1",datacenter="dc1",node_pool="web${EVIL}",node_class="",status="down",eligibility="ineligible",drain="false"} 2
scheduler_nodes{target="a1",datacenter="dc1",node_pool="batch",node_class="",status="ready",eligibility="eligible",drain="false"} 3
scheduler_nodes{target="a1",datacenter="dc1",node_pool="batch",node_class="",status="disconnected",eligibility="eligible",drain="false"} 1
scheduler_nodes{target="a1",datacenter="dc1",node_pool="batch",node_class="",status="down",eligibility="eligible",drain="false"} 0
scheduler_agent_token_expiry_timestamp_seconds{target="a1"} ${NOW_S + 2.5 * DAY}
scheduler_agent_up{target="a2"} 1
scheduler_agent_autopilot_failure_tolerance{target="a2"} 1
scheduler_agent_token_expiry_timestamp_seconds{target="a2"} ${NOW_S + 30 * DAY}
secrets_replication_up{target="c1",kind="dr"} 1
secrets_sealed{target="c1"} 0
secrets_token_expiry_timestamp_seconds{target="c1"} ${NOW_S - 60}
secrets_replication_up{target="c2",kind="dr"} 1
secrets_sealed{target="c2"} 0
`;

describe("an agent's region and vigil's tokens", () => {
  const e = buildEstate(SNAPSHOT, [], NOW);
  const a1 = e.agents.find((a) => a.target === 'a1')!;
  const a2 = e.agents.find((a) => a.target === 'a2')!;

  it('reads autopilot and counts the client nodes per pool by status', () => {
    expect(a1.fleet).toEqual({
      autopilot: { healthy: false, failureTolerance: 0, voters: 3 },
      pools: [
        { pool: 'batch', ready: 3, down: 0, disconnected: 1 },
        { pool: `web${EVIL}`, ready: 5, down: 2, disconnected: 0 },
      ],
      workload: null,
    });
    expect(a2.fleet).toEqual({ autopilot: { healthy: null, failureTolerance: 1, voters: null }, pools: [], workload: null });
  });

  it('names tolerance 0 and each pool with nodes down as problems', () => {
    expect(a1.problems).toEqual(['autopilot failure tolerance 0: one more server lost stops the region', `pool web${EVIL}: 2 client nodes down`]);
    expect(a2.problems).toEqual([]);
  });

  it('counts the whole days left on each token, and none where no expiry is reported', () => {
    expect([a1.tokenDaysLeft, a2.tokenDaysLeft]).toEqual([2, 30]);
    expect(e.secrets.find((c) => c.target === 'c1')!.tokenDaysLeft).toBe(-1);
    expect(e.secrets.find((c) => c.target === 'c2')!.tokenDaysLeft).toBeNull();
  });

  it('renders the quorum, a row per pool and the near expiries, every upstream string as text', () => {
    const html = renderEstate(e, { now: NOW });
    expect(html).not.toContain('<img');
    expect(html).toContain(
      '<p class="autopilot-summary"><span class="badge bad">failure tolerance 0</span> · <span class="badge bad">autopilot unhealthy</span> · 3 voters</p>',
    );
    // a1 names no region: its pools are a region of their own, named after it.
    const unknown = '<th scope="row"><span class="muted">unknown (a1)</span></th>';
    expect(html).toContain(
      `<tr class="row-bad">${unknown}<td>web&#60;img src=x onerror=alert(1)&#62;</td><td>5</td><td><span class="badge bad">2</span></td><td>0</td><td class="muted">a1</td></tr>`,
    );
    expect(html).toContain(`<tr class="">${unknown}<td>batch</td><td>3</td><td>0</td><td><span class="badge warn">1</span></td><td class="muted">a1</td></tr>`);
    expect(html).toContain('<strong>a1</strong>: pool web&#60;img src=x onerror=alert(1)&#62;: 2 client nodes down');
    expect(html).toContain('<span class="badge warn">token expires in 2 days</span>');
    expect(html).toContain('<span class="badge bad">token expired</span>');
    // A month away is not worth a line.
    expect(html.match(/token expire/g)).toHaveLength(2);
  });
});
