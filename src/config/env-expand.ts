/**
 * Expands `${NAME}` in every string of a parsed YAML document (after parsing, so a variable cannot
 * inject YAML structure). `$${` stays a literal `${`. An unset variable is an error naming the key.
 */
export function expandEnv(doc: unknown, env: NodeJS.ProcessEnv, path = ''): unknown {
  if (typeof doc === 'string') return expandString(doc, env, path);
  if (Array.isArray(doc)) return doc.map((v, i) => expandEnv(v, env, `${path}[${i}]`));
  if (doc && typeof doc === 'object') {
    return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, expandEnv(v, env, path ? `${path}.${k}` : k)]));
  }
  return doc;
}

export class EnvExpansionError extends Error {}

function expandString(s: string, env: NodeJS.ProcessEnv, path: string): string {
  return s.replace(/\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (match, name: string | undefined) => {
    if (match === '$${') return '${';
    const v = env[name as string];
    if (v === undefined) throw new EnvExpansionError(`${path}: environment variable ${name} is not set`);
    return v;
  });
}
