// Writes dist/build-info.json: the revision and branch vigil_build_info reports, taken when vigil is
// built: from VIGIL_REVISION / VIGIL_BRANCH (the image's build arguments) or else from git.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const git = (...args) => {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
};
const revision = process.env.VIGIL_REVISION || git('rev-parse', '--short=12', 'HEAD') || 'unknown';
const branch = process.env.VIGIL_BRANCH || git('rev-parse', '--abbrev-ref', 'HEAD') || 'unknown';
writeFileSync(new URL('../dist/build-info.json', import.meta.url), `${JSON.stringify({ revision, branch })}\n`);
process.stdout.write(`dist/build-info.json: revision ${revision}, branch ${branch}\n`);
