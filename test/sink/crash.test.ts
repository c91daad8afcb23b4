import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { getJson, notification, post } from '../helpers/alertmanager.js';

const ROOT = new URL('../..', import.meta.url).pathname;

interface Vigil {
  child: ChildProcess;
  url: string;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];

/** Real vigil (src/main.ts) in its own process; resolves once the sink is ready. */
async function startVigil(configFile: string): Promise<Vigil> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', `--config.file=${configFile}`, '--web.listen-address=127.0.0.1:0', '--log.format=json'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let url = '';
  const lines = createInterface({ input: child.stderr! });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('vigil did not start within 20s')), 20_000);
    child.once('exit', (code) => reject(new Error(`vigil exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      let l: { msg?: string; url?: string };
      try {
        l = JSON.parse(line) as typeof l;
      } catch {
        return;
      }
      if (l.msg === 'vigil listening' && l.url) url = l.url;
      if (l.msg === 'alert sink ready') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  await ready;
  return { child, url };
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('a vigil killed with SIGKILL right after answering 200', () => {
  it('has every acknowledged notification when it starts again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-crash-'));
    dirs.push(dir);
    const config = join(dir, 'vigil.yml');
    writeFileSync(config, `alert_sink:\n  store: { path: ${dir}/alerts.db }\n`);

    const first = await startVigil(config);
    const sent = Array.from({ length: 40 }, (_, i) => notification({ groupKey: `crash-${i}`, alerts: [{ fingerprint: `f${i}`, severity: 'critical' }] }));
    const answers = await Promise.all(sent.map((n) => post(first.url, n)));
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(answers.map((a) => a.status)).toEqual(sent.map(() => 200));

    const second = await startVigil(config);
    const { body } = await getJson<{ notifications: Array<{ groupKey: string }> }>(second.url, '/api/v1/notifications?limit=1000');
    expect(body.notifications.map((n) => n.groupKey).sort()).toEqual(sent.map((n) => n.groupKey as string).sort());
    const alerts = await getJson<{ alerts: unknown[] }>(second.url, '/api/v1/alerts?state=firing');
    expect(alerts.body.alerts).toHaveLength(40);
  });
});
