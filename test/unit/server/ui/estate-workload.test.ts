import { describe, expect, it } from 'vitest';
import { buildEstate } from '../../../../src/server/estate.js';
import { renderEstate } from '../../../../src/server/ui/estate-view.js';

/** A region's workload on the status page: the jobs with a problem, the worst first, one line per region however many agents list it. */

const NOW = Date.parse('2026-11-29T01:00:00Z');
const EVIL = '<img src=x onerror=alert(1)>';

/** Agents s1 and c1 of region global list the same workload; a3 lists none of it. */
const region = (t: string) => `scheduler_agent_up{target="${t}"} 1
scheduler_agent_info{target="${t}",name="${t}",region="global",datacenter="dc1",version="1.9.3",server="true"} 1
scheduler_jobs{target="${t}",namespace="default",type="service",status="running"} 6
scheduler_job_allocations{target="${t}",namespace="default",job_id="api",type="service",state="queued"} 2
scheduler_job_allocations{target="${t}",namespace="default",job_id="api",type="service",state="running"} 0
scheduler_job_allocations{target="${t}",namespace="default",job_id="etl",type="batch",state="queued"} 3
scheduler_job_allocations{target="${t}",namespace="default",job_id="etl",type="batch",state="running"} 0
scheduler_job_allocations_failing{target="${t}",namespace="default",job_id="api",type="service"} 0
scheduler_job_allocations_failing{target="${t}",namespace="default",job_id="etl",type="batch"} 0
scheduler_job_allocations_failing{target="${t}",namespace="pay",job_id="web${EVIL}",type="service"} 7
scheduler_job_dead{target="${t}",namespace="pay",job_id="ledger",type="service"} 1
scheduler_deployment_status{target="${t}",namespace="default",job_id="cache",status="failed"} 1
scheduler_deployment_status{target="${t}",namespace="default",job_id="web2",status="failed"} 1
scheduler_deployment_shortfall{target="${t}",namespace="default",job_id="web2"} 2
scheduler_deployment_status{target="${t}",namespace="default",job_id="rolling",status="running"} 1
scheduler_evaluations{target="${t}",namespace="default",status="blocked"} 1
scheduler_evaluations{target="${t}",namespace="pay",status="blocked"} 2
scheduler_evaluations{target="${t}",namespace="default",status="pending"} 9
`;
const SNAPSHOT = `${region('s1')}${region('c1')}scheduler_agent_up{target="a3"} 1\n`;

describe("a region's workload", () => {
  const e = buildEstate(SNAPSHOT, [], NOW);
  const agent = (t: string) => e.agents.find((a) => a.target === t)!;

  it('lists the jobs with a problem, a service down first, then short, failing, queued, a failed deployment; and the evaluations blocked', () => {
    expect(agent('c1').problems).toEqual([
      'job api: no running allocation, 2 queued',
      'job pay/ledger: dead, not stopped',
      'job web2: deployment failed, 2 allocations short',
      `job pay/web${EVIL}: 7 allocations failed or lost lately`,
      'job etl: 3 allocations queued',
      '1 more job with problems',
      '3 evaluations blocked',
    ]);
    expect(agent('c1').fleet.workload?.jobs.map((j) => j.job)).toEqual(['api', 'ledger', 'web2', `web${EVIL}`, 'etl']);
    expect(agent('c1').fleet.workload?.moreJobs).toBe(1);
  });

  it("says each of the region's problems once, under the first agent, and nothing for an agent that lists no workload", () => {
    expect(agent('s1').problems).toEqual([]);
    expect(agent('c1').consequences.map((c) => c.lines)).toContainEqual(['also reported by agent s1']);
    expect(agent('a3').fleet.workload).toBeNull();
  });

  it('renders the summary and the lines with every upstream string as text', () => {
    const html = renderEstate(e, { now: NOW });
    expect(html).toContain('6 jobs with problems');
    expect(html).toContain('3 evaluations blocked');
    expect(html).not.toContain(EVIL);
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });
});
