import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { COLLECTORS } from '../collectors/index.js';
import { MAX_CONFIG_FILE_BYTES, MAX_SECRET_FILE_BYTES, fileProblem, readBoundedFile } from '../config-fields/bounded-file.js';
import { ConfigError, keyPath } from '../config-fields/errors.js';
import type { Config } from '../config/schema.js';
import { secureOptions } from '../server/tls-context.js';
import type { WebConfig } from '../server/web-config.js';

/**
 * `--config.check`: after the config and the web config were loaded as at start, whether every
 * file they name can be used: a regular, readable file of a sane size (a token, a password or a
 * certificate), the web config's TLS as OpenSSL takes it, and the alert store's directory. One
 * report line per target, the alert sink and the web config; a problem names the key and the file,
 * never a file's content.
 */
export interface CheckLine {
  /** `secrets dr-primary`, `alert_sink`, `web config`. */
  readonly subject: string;
  readonly problems: readonly string[];
}

/** A file a key names: read as vigil reads it (bounded, regular files only), its content dropped. */
async function fileProblems(key: string, path: string): Promise<string[]> {
  // CA bundles and certificate chains are public and may be large; anything else is a secret.
  const secret = !/(^|[._])(ca|cert)_file$/.test(key);
  try {
    const bytes = await readBoundedFile(path, secret ? MAX_SECRET_FILE_BYTES : MAX_CONFIG_FILE_BYTES);
    return secret && bytes.toString('utf8').trim() === '' ? [`${key} ${path}: is empty`] : [];
  } catch (e) {
    return [`${key} ${path}: ${fileProblem(e)}`];
  }
}

/** Every `*_file` key under `value`, checked; keys are named from `at`. */
async function namedFiles(value: unknown, at: readonly PropertyKey[]): Promise<string[]> {
  if (typeof value !== 'object' || value === null) return [];
  const found = await Promise.all(
    Object.entries(value).map(([k, v]) => {
      const path = [...at, Array.isArray(value) ? Number(k) : k];
      return typeof v === 'string' && k.endsWith('_file') ? fileProblems(keyPath(path), v) : namedFiles(v, path);
    }),
  );
  return found.flat();
}

/** An SQLite store's file is created in its directory: the directory must exist and take writes. */
async function storeDirectory(sink: NonNullable<Config['alert_sink']>): Promise<string[]> {
  const path = !sink.enabled || sink.store.postgres ? undefined : sink.store.path;
  if (path === undefined) return [];
  const dir = dirname(path);
  try {
    if (!(await stat(dir)).isDirectory()) return [`alert_sink.store.path ${path}: ${dir} is not a directory`];
    await access(dir, constants.W_OK | constants.X_OK);
    return [];
  } catch (e) {
    return [`alert_sink.store.path ${path}: directory ${dir}: ${fileProblem(e)}`];
  }
}

async function webProblems(web: WebConfig): Promise<string[]> {
  if (!web.tls) return [];
  try {
    await secureOptions(web.tls);
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
}

/** The lines of the report, every target of every collector first, in the config's order. */
export async function checkFiles(config: Config, web: WebConfig | undefined): Promise<CheckLine[]> {
  const targets = COLLECTORS.flatMap((c) => config[c.kind].map((t) => ({ subject: `${c.kind} ${t.name}`, target: t })));
  const lines: CheckLine[] = await Promise.all(targets.map(async ({ subject, target }) => ({ subject, problems: await namedFiles(target, []) })));
  const sink = config.alert_sink;
  if (sink) lines.push({ subject: 'alert_sink', problems: [...(await namedFiles(sink, ['alert_sink'])), ...(await storeDirectory(sink))] });
  if (web) lines.push({ subject: 'web config', problems: await webProblems(web) });
  return lines;
}

/** `subject: ok`, or one line per problem. */
export const reportLines = (l: CheckLine): string[] => (l.problems.length ? l.problems.map((p) => `${l.subject}: ${p}`) : [`${l.subject}: ok`]);
