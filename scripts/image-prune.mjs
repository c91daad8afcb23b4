// Leaves in /app only what vigil runs: called in the image's build stage after `npm prune --omit=dev`.
// - Packages not reachable from package.json's dependencies are removed. Install-time helpers of
//   native addons (prebuild-install and what only it pulls in) are not followed.
// - A native addon (a package with binding.gyp) keeps its JavaScript and its built .node files,
//   not its C/C++ sources, the bundled SQLite, or the compiler's intermediates.
// - Source maps (their sources are not shipped), type declarations and empty directories go.
// Any pure-JS dependency added to package.json is kept without touching this file.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const INSTALL_ONLY = new Set(['prebuild-install', 'node-gyp', 'node-gyp-build-optional-packages']);
const root = process.argv[2] ?? process.cwd();
const pkgJson = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** Node's lookup: ./node_modules/NAME, then each parent's node_modules up to the root. */
function resolvePkg(fromDir, name) {
  for (let dir = fromDir; ; dir = dirname(dirname(dir))) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || !dir.startsWith(root)) return undefined;
  }
}

const keep = new Set();
const queue = [root];
while (queue.length) {
  const dir = queue.pop();
  const p = pkgJson(dir);
  const deps = { ...p.dependencies, ...p.optionalDependencies, ...p.peerDependencies };
  for (const name of Object.keys(deps)) {
    if (INSTALL_ONLY.has(name)) continue;
    const found = resolvePkg(dir, name);
    if (found && !keep.has(found)) {
      keep.add(found);
      queue.push(found);
    }
  }
}

let removed = 0;
const remove = (path) => {
  rmSync(path, { recursive: true, force: true });
  removed++;
};

/** Every installed package directory below a node_modules folder (scopes and nesting included). */
function* packageDirs(nodeModules) {
  if (!existsSync(nodeModules)) return;
  for (const entry of readdirSync(nodeModules)) {
    const path = join(nodeModules, entry);
    if (entry.startsWith('@')) yield* packageDirs(path);
    else if (entry.startsWith('.'))
      remove(path); // .bin, .package-lock.json, .cache
    else {
      yield path;
      yield* packageDirs(join(path, 'node_modules'));
    }
  }
}

for (const dir of [...packageDirs(join(root, 'node_modules'))]) {
  if (!existsSync(dir)) continue;
  if (!keep.has(dir)) remove(dir);
  else if (existsSync(join(dir, 'binding.gyp'))) stripNativeAddon(dir);
}

function stripNativeAddon(dir) {
  const built = join(dir, 'build');
  for (const entry of readdirSync(dir)) {
    if (['deps', 'src', 'binding.gyp', 'docs'].includes(entry)) remove(join(dir, entry));
  }
  if (!existsSync(built)) return;
  // Only build/Release/NAME.node is loaded; obj.target/ holds the linker's copy and the objects.
  walk(built, (path, isDir) => {
    if (!isDir && !(dirname(path) === join(built, 'Release') && path.endsWith('.node'))) remove(path);
  });
}

/** Depth-first, children before their directory, so emptied directories can be removed. */
function walk(dir, visit) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const isDir = statSync(path).isDirectory();
    if (isDir) walk(path, visit);
    visit(path, isDir);
  }
}

for (const top of ['node_modules', 'dist']) {
  const dir = join(root, top);
  if (!existsSync(dir)) continue;
  walk(dir, (path, isDir) => {
    if (isDir) {
      if (readdirSync(path).length === 0) remove(path);
    } else if (/\.(map|d\.ts|d\.mts|d\.cts)$/.test(path)) remove(path);
  });
}
console.log(`image-prune: kept ${keep.size} packages, removed ${removed} paths under ${relative(process.cwd(), root) || '.'}`);
