import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runProbe } from '../../helpers/process.js';
import { VIGIL_ENV, VIGIL_NODE_FLAGS } from '../../../bench/scale/start-vigil.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Node's own flags in the image's ENTRYPOINT and in `npm start`: those between `node` and `dist/main.js`. */
function nodeFlags(command: string[]): string[] {
  return command.slice(command.indexOf('node') + 1, command.indexOf('dist/main.js'));
}

describe('the young generation of each thread', () => {
  it('node --max-semi-space-size sizes the main thread, and a thread vigil starts keeps the young generation it asks for', async () => {
    const { stdout } = await runProbe('test/fixtures/threads/young-generation-probe.ts', ['--max-semi-space-size=2']);
    const grew = JSON.parse(stdout) as { main: number; thread: number };
    // Two semi-spaces of 2 MiB on the main thread; the thread's 32 MiB, not the flag's 2.
    expect(grew.main).toBeLessThanOrEqual(4);
    expect(grew.thread).toBeGreaterThan(16);
  }, 90_000);

  it('the image and `npm start` run node with the same flags', () => {
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync(`${ROOT}/Dockerfile`, 'utf8'))?.[1];
    const start = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start;
    const image = nodeFlags(JSON.parse(entrypoint ?? '[]') as string[]);
    expect(image).toContain('--max-semi-space-size=4');
    expect(image).toContain('--no-memory-reducer');
    expect(image).toContain('--expose-gc');
    expect(nodeFlags(start.split(' '))).toEqual(image);
    // The benches run vigil as the image does.
    expect(VIGIL_NODE_FLAGS).toEqual(image);
  });

  it('the image, `npm start` and the benches give the C library the same allocator settings', () => {
    const dockerfile = readFileSync(`${ROOT}/Dockerfile`, 'utf8');
    // The runtime stage: the ENV lines after the last FROM.
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const imageEnv = [...runtime.matchAll(/^ENV (.+)$/gm)].flatMap((m) => (m[1] ?? '').split(' ')).filter((kv) => kv.startsWith('MALLOC_'));
    const start = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start;
    const startEnv = start.split(' node ')[0]?.split(' ') ?? [];
    expect(imageEnv).toEqual(['MALLOC_ARENA_MAX=2']);
    expect(startEnv).toEqual(imageEnv);
    expect(Object.entries(VIGIL_ENV).map(([k, v]) => `${k}=${v}`)).toEqual(imageEnv);
  });
});
