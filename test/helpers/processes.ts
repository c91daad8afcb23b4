import { freePort, startAlertmanager, startPrometheus, startService, type Service } from '../../simulators/alerting/service.js';

/** The tests start Prometheus and Alertmanager as the demo does (simulators/alerting/service.ts). */
export { freePort, startAlertmanager, startPrometheus, startService, type Service };

/** Polls `check` until it returns a value (not undefined) or the time runs out. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, everyMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
