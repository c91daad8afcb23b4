import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getJson, notification, post } from '../helpers/alertmanager.js';
import { spawnVigil, type VigilProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/temp-dir.js';

const children: ChildProcess[] = [];

async function startVigil(configFile: string): Promise<VigilProcess> {
  const v = await spawnVigil(configFile);
  children.push(v.child);
  return v;
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

describe('a vigil killed with SIGKILL right after answering 200', () => {
  it('has every acknowledged notification when it starts again', async () => {
    const dir = tempDir('vigil-crash-');
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
