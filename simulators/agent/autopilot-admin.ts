import type { RegionAutopilot } from './autopilot.js';

type Body = Record<string, unknown>;
type Reply = { status: number; body: unknown };

const fail = (status: number, message: string): Reply => ({ status, body: { errors: [message] } });

/** The `/_sim/autopilot` routes (see admin-api.ts); undefined for a route that is not one of them. */
export function autopilotAdmin(autopilot: RegionAutopilot | undefined, method: string, target: string, body: Body): Reply | undefined {
  if (!autopilot) return fail(409, "this agent's region runs no server, so it has no autopilot");
  if (method === 'DELETE' && target === 'autopilot') {
    autopilot.reset();
    return { status: 204, body: undefined };
  }
  if (method === 'POST' && target === 'autopilot/flap') {
    const every = body.every_ms;
    if (every !== null && (typeof every !== 'number' || !Number.isInteger(every) || every < 1)) return fail(400, 'every_ms must be an integer >= 1, or null');
    autopilot.flap(every ?? undefined);
    return { status: 200, body: autopilot.body(true).body };
  }
  if (method === 'POST' && target.startsWith('autopilot/servers/')) {
    const name = decodeURIComponent(target.slice('autopilot/servers/'.length));
    const { killed, lag } = body;
    if (killed !== undefined && typeof killed !== 'boolean') return fail(400, 'killed must be a boolean');
    if (lag !== undefined && (typeof lag !== 'number' || !Number.isInteger(lag) || lag < 0)) return fail(400, 'lag must be an integer >= 0');
    if (!autopilot.setServer(name, { killed, lag })) return fail(404, `no raft server named ${name} (servers: ${autopilot.names.join(', ')})`);
    return { status: 200, body: autopilot.body(true).body };
  }
  return undefined;
}
