import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempFile } from '../helpers/daemon.js';
import { startVigil, type VigilProcess } from '../helpers/process.js';
import { freePort } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { parseExposition } from '../helpers/exposition.js';

/**
 * What users of other Prometheus components expect of an exporter: /-/healthy and /-/ready,
 * --web.telemetry-path, and vigil_build_info saying what it was built from.
 */
let vigil: VigilProcess;
let url = '';

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const config = tempFile('vigil.yml', 'secrets:\n  - { name: down, address: "http://127.0.0.1:1", schedule: "*/1 * * * * *" }\n');
  vigil = startVigil([`--config.file=${config}`, `--web.listen-address=127.0.0.1:${port}`, '--web.telemetry-path=/probe/metrics']);
  await waitFor('vigil', async () => ((await fetch(`${url}/-/healthy`).catch(() => undefined))?.ok ? true : undefined), 60_000);
}, 70_000);
afterAll(() => vigil?.stop());

describe('the conventions of the Prometheus ecosystem', () => {
  it('answers /-/healthy like /healthz, and /-/ready like /readyz', async () => {
    const healthy = await fetch(`${url}/-/healthy`);
    expect(healthy.status).toBe(200);
    expect(await healthy.text()).toBe(await (await fetch(`${url}/healthz`)).text());
    await waitFor('ready', async () => ((await fetch(`${url}/-/ready`)).status === 200 ? true : undefined), 30_000);
    expect(await (await fetch(`${url}/-/ready`)).json()).toEqual(await (await fetch(`${url}/readyz`)).json());
  });

  it('serves the metrics at --web.telemetry-path only, and the pages link there', async () => {
    const res = await fetch(`${url}/probe/metrics`);
    expect(res.status).toBe(200);
    const m = parseExposition(await res.text());
    expect([...m].filter(([k]) => k.startsWith('secrets_replication_up{')).map(([, v]) => v)).toEqual([0, 0]);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    expect(await (await fetch(`${url}/`)).text()).toContain('href="probe/metrics"');
  });

  it('says in vigil_build_info which revision and branch it was built from', async () => {
    const text = await (await fetch(`${url}/probe/metrics`)).text();
    const info = [...parseExposition(text).keys()].find((k) => k.startsWith('vigil_build_info{'));
    // Run from this checkout's sources: what its git says, as `npm run build` writes it.
    expect(info).toMatch(/branch="[^"]+",nodejs_version="[^"]+",revision="[0-9a-f]{7,}",/);
    expect(info).not.toContain('"unknown"');
  });
});
