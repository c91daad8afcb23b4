import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgentScenario, startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { alertsOf, FAILURE_CLASSES } from '../../simulators/alerting/failure-classes/index.js';
import { shippedRules } from '../../simulators/alerting/shipped-files.js';
import { demoFaults, type DemoFault } from '../../simulators/demo-faults.js';
import { demoWithNodesScenario, startSecretsSimulator, type SecretsSimulator } from '../../simulators/secrets/index.js';
import { demoTeamsScenario, startTeamsSimulator, type TeamsSimulator } from '../../simulators/teams/index.js';

/**
 * The faults the demo prints: each names the paging matrix's rows it makes, so its line lists every
 * alert from the matrix (docs/paging.md), never a hand-kept list that drifts from it.
 */
let secrets: SecretsSimulator;
let agents: AgentSimulator;
let teams: TeamsSimulator;
let faults: DemoFault[];

beforeAll(async () => {
  [secrets, agents, teams] = await Promise.all([
    startSecretsSimulator(demoWithNodesScenario()),
    startAgentSimulator(demoAgentScenario()),
    startTeamsSimulator(demoTeamsScenario()),
  ]);
  faults = demoFaults({ secrets, agents, teams, organization: demoTeamsScenario().organizations[0]!.name });
});

afterAll(async () => {
  await Promise.all([secrets?.close(), agents?.close(), teams?.close()]);
});

describe('the demo’s faults', () => {
  it('each make rows of the paging matrix, none a control, and raise only shipped alerts', () => {
    const shipped = new Set(shippedRules().map((r) => r.alert));
    for (const f of faults) {
      expect(f.classes.length + (f.controls?.length ?? 0), f.what).toBeGreaterThan(0);
      for (const alert of alertsOf(f.classes)) expect(shipped.has(alert), `${f.what}: ${alert}`).toBe(true);
    }
  });

  it('that page nobody make only control rows of the matrix, and say so', () => {
    const quiet = faults.filter((f) => f.controls);
    expect(quiet.map((f) => f.what)).toEqual([expect.stringMatching(/^fail a run of the batch job .*pages nobody/)]);
    for (const f of quiet) {
      expect(f.classes, f.what).toEqual([]);
      for (const id of f.controls ?? []) expect(FAILURE_CLASSES.find((c) => c.id === id)?.control, id).toBe(true);
    }
  });

  it('name a node fault’s consequences: a sealed or dead voter also leaves its raft server unhealthy', () => {
    const of = (what: RegExp) => alertsOf(faults.find((f) => what.test(f.what))?.classes ?? []);
    expect(of(/^seal the standby/)).toEqual(['SecretsNodeSealed', 'SecretsRaftFailureToleranceLost', 'SecretsRaftServerUnhealthy']);
    expect(of(/^kill the voter/)).toEqual(['SecretsRaftFailureToleranceLost', 'SecretsRaftServerUnhealthy', 'SecretsNodeUnreachable']);
  });

  it('offer a pool of client nodes down, and no control', () => {
    const made = new Set(faults.flatMap((f) => f.classes));
    expect(made.has('nodes-pool-down')).toBe(true);
    expect(FAILURE_CLASSES.filter((c) => made.has(c.id)).every((c) => !c.control)).toBe(true);
  });

  it('refuses a row the matrix does not have, and a control', () => {
    expect(() => alertsOf(['no-such-row'])).toThrow(/no failure class "no-such-row"/);
    const control = FAILURE_CLASSES.find((c) => c.control)!;
    expect(() => alertsOf([control.id])).toThrow(/is a control/);
  });
});
