import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/**
 * Version from package.json (next to dist/ and src/); revision and branch from the build
 * (dist/build-info.json, written by `npm run build` from git or the image's build arguments), or
 * from VIGIL_REVISION / VIGIL_BRANCH in the environment, which win.
 */
function readJson(url: URL): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const pkg = readJson(new URL('../package.json', import.meta.url));
const built = new URL('./build-info.json', import.meta.url);
/** Run from a checkout's sources (no build): ask its git, as the build would. */
function fromGit(): Record<string, unknown> {
  const root = new URL('..', import.meta.url);
  if (!existsSync(new URL('.git', root))) return {};
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim();
    } catch {
      return '';
    }
  };
  return { revision: git('rev-parse', '--short=12', 'HEAD'), branch: git('rev-parse', '--abbrev-ref', 'HEAD') };
}
const build = existsSync(built) ? readJson(built) : fromGit();
const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

export const VERSION = text(pkg.version) ?? 'unknown';
export const REVISION = text(process.env.VIGIL_REVISION) ?? text(build.revision) ?? 'unknown';
export const BRANCH = text(process.env.VIGIL_BRANCH) ?? text(build.branch) ?? 'unknown';
