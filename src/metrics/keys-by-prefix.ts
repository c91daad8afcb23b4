/**
 * Keys, found by a prefix without a look at every key. Group keys are paths
 * (`<collector>/<target>/<part>`, `vigil/upstream/<kind>/<target>`), and a job commits under its
 * own `<collector>/<target>/` after every run: a search of all keys each time cost, at a million
 * series, thousands of commits a collection times tens of thousands of keys. Keys are kept in
 * buckets by their text up to the second `/`; a prefix that reaches its second `/` names its bucket,
 * a shorter one looks at every key.
 */
export class KeysByPrefix {
  private readonly buckets = new Map<string, Set<string>>();

  add(key: string): void {
    const b = bucketOf(key);
    let keys = this.buckets.get(b);
    if (!keys) this.buckets.set(b, (keys = new Set()));
    keys.add(key);
  }

  delete(key: string): void {
    const b = bucketOf(key);
    const keys = this.buckets.get(b);
    if (keys?.delete(key) && keys.size === 0) this.buckets.delete(b);
  }

  /** The keys that start with `prefix`, as a list of their own (the caller may delete them). */
  under(prefix: string): string[] {
    const end = secondSlash(prefix);
    const candidates = end === -1 ? this.buckets.values() : [this.buckets.get(prefix.slice(0, end + 1)) ?? []];
    const out: string[] = [];
    for (const keys of candidates) for (const k of keys) if (k.startsWith(prefix)) out.push(k);
    return out;
  }
}

function secondSlash(key: string): number {
  const first = key.indexOf('/');
  return first === -1 ? -1 : key.indexOf('/', first + 1);
}

/** A key's text up to and with its second `/`, or the whole key when it has fewer. */
function bucketOf(key: string): string {
  const end = secondSlash(key);
  return end === -1 ? key : key.slice(0, end + 1);
}
