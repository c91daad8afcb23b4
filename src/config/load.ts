import { MAX_CONFIG_FILE_BYTES, fileProblem, readBoundedFile } from '../config-fields/bounded-file.js';
import { EnvExpansionError, expandEnv, hideExpanded } from '../config-fields/env-expand.js';
import { configSchema, type Config } from './schema.js';
import { ConfigError, describeIssue, yamlMapping } from '../config-fields/errors.js';

/** Parses and validates config text; `source` names the file in messages. */
export function parseConfig(text: string, source: string, env: NodeJS.ProcessEnv = process.env): Config {
  let raw: unknown = yamlMapping(text, source);
  const used = new Map<string, string>();
  try {
    raw = expandEnv(raw, env, '', used);
  } catch (e) {
    if (e instanceof EnvExpansionError) throw new ConfigError([e.message]);
    throw e;
  }
  // Without the input, zod cannot tell a missing key from a value of the wrong type.
  const res = configSchema.safeParse(raw, { reportInput: true });
  // A value from the environment may be a secret (a URL with a token in it): messages show its name.
  if (!res.success) throw new ConfigError(res.error.issues.flatMap(describeIssue).map((m) => hideExpanded(m, used)));
  return res.data;
}

export async function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  let text: string;
  try {
    text = (await readBoundedFile(path, MAX_CONFIG_FILE_BYTES)).toString('utf8');
  } catch (e) {
    // Named as every other file the config names is: the key (here the flag) that names it, then the path.
    throw new ConfigError([`--config.file: cannot read file "${path}" (${fileProblem(e)})`]);
  }
  return parseConfig(text, path, env);
}
