import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface VigilProcess {
  child: ChildProcess;
  url: string;
}

const ROOT = new URL('../..', import.meta.url);

/**
 * Real vigil (src/main.ts through tsx) in its own process on 127.0.0.1:<free port>, resolving once
 * its alert sink is ready. The caller kills the child.
 */
export function spawnVigil(configFile: string, timeoutMs = 20_000): Promise<VigilProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', `--config.file=${configFile}`, '--web.listen-address=127.0.0.1:0', '--log.format=json'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let url = '';
    const timer = setTimeout(() => reject(new Error(`vigil did not start within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code) => reject(new Error(`vigil exited with ${code} before it was ready`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      let l: { msg?: string; url?: string };
      try {
        l = JSON.parse(line) as typeof l;
      } catch {
        return;
      }
      if (l.msg === 'vigil listening' && l.url) url = l.url;
      if (l.msg === 'alert sink ready') {
        clearTimeout(timer);
        resolve({ child, url });
      }
    });
  });
}
