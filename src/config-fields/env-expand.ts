/**
 * Expands `${NAME}` and `${NAME:-default}` (the default when NAME is unset or empty, as in a shell)
 * in every string of a parsed YAML document (after parsing, so a variable cannot inject YAML
 * structure). `$${` stays a literal `${`. An unset variable without a default is an error naming
 * the key. `used` collects each variable's value, so messages can hide them (they may be secrets).
 */
export function expandEnv(doc: unknown, env: NodeJS.ProcessEnv, path = '', used: Map<string, string> = new Map()): unknown {
  if (typeof doc === 'string') return expandString(doc, env, path, used);
  if (Array.isArray(doc)) return doc.map((v, i) => expandEnv(v, env, `${path}[${i}]`, used));
  if (doc && typeof doc === 'object') {
    return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, expandEnv(v, env, path ? `${path}.${k}` : k, used)]));
  }
  return doc;
}

export class EnvExpansionError extends Error {}

function expandString(s: string, env: NodeJS.ProcessEnv, path: string, used: Map<string, string>): string {
  return s.replace(/\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$${') return '${';
    const set = env[name as string];
    const v = fallback !== undefined && !set ? fallback : set;
    if (v === undefined) throw new EnvExpansionError(`${path}: environment variable ${name} is not set`);
    if (v === set) used.set(name as string, v);
    return v;
  });
}

/** A message with every expanded variable's value shown as `${NAME}` (values under 3 characters are left). */
export function hideExpanded(message: string, used: ReadonlyMap<string, string>): string {
  let out = message;
  for (const [name, value] of [...used].sort((a, b) => b[1].length - a[1].length)) {
    if (value.length >= 3) out = out.split(value).join(`\${${name}}`);
  }
  return out;
}
