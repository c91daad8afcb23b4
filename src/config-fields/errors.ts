import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';

/** A config that cannot be used; the message names the key path and the problem, never a secret. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/** `secrets[1].address` from zod's ['secrets', 1, 'address']. */
export function keyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(top level)';
}

/** One issue as `key.path: problem` lines (also used for request bodies and query strings). */
export function describeIssue(issue: z.core.$ZodIssue): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => `${keyPath([...issue.path, k])}: unknown key`);
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) return [`${keyPath(issue.path)}: required`];
  return [`${keyPath(issue.path)}: ${issue.message}`];
}

/** The document's value; what YAML cannot resolve (an alias to no anchor, too many aliases) is a ConfigError. */
function yamlValue(doc: ReturnType<typeof parseDocument>, source: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new ConfigError([`${source}: YAML: ${(e as Error).message.split('\n')[0]}`]);
  }
}

/**
 * A YAML file's top-level mapping. A syntax error reads as one line: the parser's message and
 * where it is (its pretty form ends in a colon before a code excerpt that a log line cannot hold).
 */
export function yamlMapping(text: string, source: string): object {
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter: lines });
  if (doc.errors.length) {
    throw new ConfigError(
      doc.errors.map((e) => {
        const { line, col } = lines.linePos(e.pos[0]);
        return `${source}: YAML: ${e.message.split('\n')[0]} (line ${line}, column ${col})`;
      }),
    );
  }
  const raw: unknown = yamlValue(doc, source) ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError([`${source}: the top level must be a mapping`]);
  return raw;
}
