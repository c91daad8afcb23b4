import type { AgentSimulator } from './agent/index.js';
import type { DemoFault } from './demo-fault.js';

/**
 * The faults of the demo region's workload (the agent simulator's default one: services web and api,
 * ledger and gateway in namespace payments), each on its own job so that they can be combined.
 */
export function workloadFaults(agents: AgentSimulator): DemoFault[] {
  const jobs = `${agents.agent('server-1').url}/_sim/jobs`;
  return [
    {
      what: 'crash-loop the service job web (an allocation fails every 5 s, none stays running)',
      inject: `curl -XPOST ${jobs}/default/web/fail -d '{"every_ms":5000}'`,
      clear: `curl -XDELETE ${jobs}/default/web/fail`,
      classes: ['job-failing'],
    },
    {
      what: 'leave 4 allocations of payments/gateway queued with no node to take them (none left running: a blocked evaluation)',
      inject: `curl -XPOST ${jobs}/payments/gateway/queue -d '{"queued":4,"running":0}'`,
      clear: `curl -XDELETE ${jobs}/payments/gateway/queue`,
      // A service job with none running pages; its queued warning and the blocked evaluation are the same cause, held back.
      classes: ['job-no-running'],
    },
    {
      what: 'fail the latest deployment of payments/ledger (1 allocation of 3 healthy)',
      inject: `curl -XPOST ${jobs}/payments/ledger/deployment -d '{"status":"failed","healthy":1}'`,
      clear: `curl -XPOST ${jobs}/payments/ledger/deployment -d '{"status":"successful"}'`,
      // Below its desired count, the failed deployment pages; its warning is the same cause, held back.
      classes: ['deployment-below-desired'],
    },
    {
      what: 'fail a run of the batch job payments/etl (it pages nobody: a batch run is its owner’s to rerun)',
      inject: `curl -XPOST ${jobs} -d '{"id":"etl","namespace":"payments","type":"batch","groups":{"load":1},"outcome":"failed"}'`,
      clear: `curl -XDELETE ${jobs}`,
      classes: [],
      controls: ['job-batch-failed'],
    },
  ];
}
