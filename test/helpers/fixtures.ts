import { readFileSync } from 'node:fs';

export function fixture(path: string): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8'));
}

/** A fixture's text as stored, for tests that alter it before serving it. */
export function readFixture(path: string): string {
  return readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');
}
