import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface VigilProcess {
  child: ChildProcess;
  url: string;
}

const ROOT = new URL('../..', import.meta.url);

/** Which vigil to run: the sources through tsx (the default), or a build (`dist/main.js` of `root`). */
export interface SpawnOptions {
  timeoutMs?: number;
  built?: { root: string };
  /** HOST:PORT to listen on (a restart keeps its scrape target); default a free port. */
  listen?: string;
  /** Further flags, e.g. `--total-shards=3`. */
  args?: string[];
  /** The log line that says it is ready: the alert sink's (default), or `vigil listening` for a vigil without one. */
  readyOn?: 'alert sink ready' | 'vigil listening';
}

/**
 * Real vigil in its own process on 127.0.0.1:<free port>, resolving once its alert sink is ready:
 * src/main.ts through tsx, or with `built` the compiled dist/main.js of a checkout. The caller kills
 * the child.
 */
export function spawnVigil(configFile: string, opts: SpawnOptions | number = {}): Promise<VigilProcess> {
  const { timeoutMs = 20_000, built, listen = '127.0.0.1:0', args = [], readyOn = 'alert sink ready' } = typeof opts === 'number' ? { timeoutMs: opts } : opts;
  const entry = built ? [join(built.root, 'dist/main.js')] : ['--import', 'tsx', 'src/main.ts'];
  const child = spawn(process.execPath, [...entry, `--config.file=${configFile}`, `--web.listen-address=${listen}`, '--log.format=json', ...args], {
    cwd: built ? built.root : ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
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
      if (l.msg === readyOn) {
        clearTimeout(timer);
        resolve({ child, url });
      }
    });
  });
}
