import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PG_MIGRATIONS } from '../../src/sink/store/postgres-migrations.js';
import { MIGRATIONS } from '../../src/sink/store/sqlite-migrations.js';

/**
 * Each SQL migration by a digest of its text. SQLite keeps a CREATE statement's text as its schema,
 * and version 1 is spelled from pieces (first-schema.ts, the dialect): an edit to any of them would
 * give new stores a schema that stores made by earlier vigils do not have. A new version is a new
 * entry here, never a changed one.
 */
const digest = (m: unknown) => (typeof m === 'string' ? createHash('sha256').update(m).digest('hex').slice(0, 16) : 'a step');

describe('the shipped migrations', () => {
  it('keep, on each engine, the text they shipped with', () => {
    expect(MIGRATIONS.map(digest)).toEqual(['c3faf1479f0631e3', '13ef626ccfd3f1e5', 'a step']);
    expect(PG_MIGRATIONS.map(digest)).toEqual(['5d288008a241471d', 'a step']);
  });
});
