import { readFileSync } from 'node:fs';

/** Version from package.json (next to dist/ and src/), revision from the build environment. */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export const VERSION = packageVersion();
export const REVISION = process.env.VIGIL_REVISION ?? 'unknown';
