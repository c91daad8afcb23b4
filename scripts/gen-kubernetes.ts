import { mkdirSync, writeFileSync } from 'node:fs';
import { allFiles } from '../deploy/kubernetes/src/index.js';

/** Regenerates deploy/kubernetes/*.yaml from deploy/kubernetes/src and alerts/ (a test fails when they differ). */
for (const [file, text] of Object.entries(allFiles())) {
  const url = new URL(`../deploy/kubernetes/${file}`, import.meta.url);
  mkdirSync(new URL('.', url), { recursive: true });
  writeFileSync(url, text);
  process.stdout.write(`deploy/kubernetes/${file} written\n`);
}
