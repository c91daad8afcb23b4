import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAgentSimulator, type AgentSimulator } from '../../simulators/agent/index.js';
import { licenseFamilies, operatorLicenseResponse } from '../../src/collectors/agent/license.js';
import { parseBody } from '../../src/upstream/parse.js';
import { series } from '../helpers/exposition.js';
import { renderSamples } from '../helpers/render.js';
import { admin } from '../helpers/agent-sim.js';

/** `GET /v1/operator/license` on an Enterprise agent and on the community edition, and the expiry set through the admin API. */
let sim: AgentSimulator;
beforeEach(async () => {
  sim = await startAgentSimulator({
    agents: [
      { name: 'ent', role: 'both', enterprise: true },
      { name: 'ce', role: 'both', region: 'other' },
    ],
    acl: { enabled: true },
  });
});
afterEach(() => sim.close());

const license = (agent: string, token = sim.readToken) =>
  fetch(`${sim.agent(agent).url}/v1/operator/license`, { headers: token ? { 'X-Scheduler-Token': token } : {} });
const expiry = async (agent: string) => {
  const s = renderSamples(licenseFamilies, parseBody(operatorLicenseResponse, await (await license(agent)).json(), 'agent/license'), { target: 't' });
  return s.get(series('scheduler_license_expiry_timestamp_seconds', { target: 't' })) as number;
};

describe('GET /v1/operator/license', () => {
  it('answers the licence on an Enterprise agent, a year away, in the shape vigil reads', async () => {
    const res = await license('ent');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { License: Record<string, unknown> };
    expect(body.License).toMatchObject({ Product: 'nomad', InstallationID: '*' });
    expect(Math.abs((await expiry('ent')) - (Date.now() / 1000 + 365 * 86400))).toBeLessThan(60);
  });

  it('answers 204 with no body on the community edition, as its handler does', async () => {
    const res = await license('ce');
    expect([res.status, await res.text()]).toEqual([204, '']);
  });

  it('needs operator:read', async () => {
    expect((await license('ent', '')).status).toBe(403);
  });

  it('moves the expiry and the termination through the admin API, and back to a year', async () => {
    expect((await admin(sim, 'ent', 'license', { expires_in_seconds: 3 * 86400, terminates_in_seconds: 4 * 86400 })).status).toBe(200);
    expect(Math.abs((await expiry('ent')) - (Date.now() / 1000 + 3 * 86400))).toBeLessThan(60);
    const body = (await (await license('ent')).json()) as { License: { TerminationTime: string } };
    expect(Math.abs(Date.parse(body.License.TerminationTime) / 1000 - (Date.now() / 1000 + 4 * 86400))).toBeLessThan(60);
    await admin(sim, 'ent', 'license', { expires_in_seconds: -60 });
    expect(await expiry('ent')).toBeLessThan(Date.now() / 1000);
    await admin(sim, 'ent', 'license', undefined, 'DELETE');
    expect((await expiry('ent')) - Date.now() / 1000).toBeGreaterThan(300 * 86400);
  });

  it('refuses what it cannot set', async () => {
    expect((await admin(sim, 'ent', 'license', { expires_in_seconds: 'soon' })).status).toBe(400);
    expect((await admin(sim, 'ent', 'license', { expires_in_seconds: 100, terminates_in_seconds: 10 })).status).toBe(400);
    expect((await admin(sim, 'ce', 'license', { expires_in_seconds: 100 })).status).toBe(409);
  });
});
