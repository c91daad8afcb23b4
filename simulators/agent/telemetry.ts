import { SteadyTimer } from '../common/telemetry.js';

/**
 * What an agent's telemetry serves that only a fault sets: the leader's plan queue (plans waiting
 * for the plan applier) and how long a plan waits for the state store to reach its index. The
 * counts the model knows (blocked evaluations, ready client nodes, the licence) come from it.
 */
export interface AgentTelemetry {
  planQueueDepth: number;
  readonly planWaitForIndex: SteadyTimer;
}

/** A healthy leader applies plans at once: nothing queued, a fraction of a millisecond's wait. */
const HEALTHY_WAIT_MS = 0.05;

export const createAgentTelemetry = (): AgentTelemetry => ({ planQueueDepth: 0, planWaitForIndex: new SteadyTimer(HEALTHY_WAIT_MS) });

type Reply = { status: number; body: unknown };
const fail = (status: number, message: string): Reply => ({ status, body: { errors: [message] } });
const KEYS = ['plan_queue_depth', 'plan_wait_for_index_ms'];

const view = (t: AgentTelemetry): Reply => ({
  status: 200,
  body: { plan_queue_depth: t.planQueueDepth, plan_wait_for_index_ms: t.planWaitForIndex.latencyMs },
});

/**
 * `POST /_sim/telemetry {"plan_queue_depth"?: N, "plan_wait_for_index_ms"?: X}` sets this agent's
 * (a leader's) plan queue; `DELETE /_sim/telemetry` empties it again; `GET` shows it. Undefined for
 * another method.
 */
export function telemetryAdmin(t: AgentTelemetry, method: string, body: Record<string, unknown>): Reply | undefined {
  if (method === 'GET') return view(t);
  if (method === 'DELETE') {
    t.planQueueDepth = 0;
    t.planWaitForIndex.set(HEALTHY_WAIT_MS);
    return view(t);
  }
  if (method !== 'POST') return undefined;
  const unknown = Object.keys(body).find((k) => !KEYS.includes(k));
  if (unknown !== undefined) return fail(400, `unknown key "${unknown}" (known: ${KEYS.join(', ')})`);
  const { plan_queue_depth: depth, plan_wait_for_index_ms: wait } = body;
  if (depth === undefined && wait === undefined) return fail(400, `say what to set: ${KEYS.join(' or ')}`);
  if (depth !== undefined && (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 0)) return fail(400, 'plan_queue_depth must be an integer >= 0');
  if (wait !== undefined && (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0))
    return fail(400, 'plan_wait_for_index_ms must be a number of milliseconds >= 0');
  if (typeof depth === 'number') t.planQueueDepth = depth;
  if (typeof wait === 'number') t.planWaitForIndex.set(wait);
  return view(t);
}
