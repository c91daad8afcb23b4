import { createRequire } from 'node:module';
import type * as Undici from 'undici';

let loaded: typeof Undici | undefined;

/**
 * undici, loaded the first time a thread makes an upstream client: only the collection thread
 * does. The main thread and the decoding threads import the collectors' declarations, which name
 * the client, but never connect; loaded with them, undici's modules and its HTTP parser cost each
 * of those threads about 14 MiB of RSS (docs/performance.md, "Modules loaded where they are used").
 */
export function undici(): typeof Undici {
  loaded ??= createRequire(import.meta.url)('undici') as typeof Undici;
  return loaded;
}
