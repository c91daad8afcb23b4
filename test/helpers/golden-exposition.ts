/**
 * The normalizer of the golden exposition (test/fixtures/golden/): every HELP, TYPE and UNIT line
 * and every series (name and labels) stays; only what legitimately differs between two runs of the
 * same estate is replaced by `<varies>`, by these rules and no others:
 *
 * 1. Values of families whose name ends in `_timestamp_seconds`: the time something happened.
 * 2. Values of TIME_DRIVEN families: how long something took, or a simulator value that follows the
 *    clock. A histogram keeps its `_count` and `+Inf` bucket (how many requests; the estate fixes it).
 * 3. RUNTIME families (prom-client's process_ and nodejs_): their HELP and TYPE lines only. Which
 *    samples they have (heap spaces, GC kinds, handle types, requests in flight, the version) depends
 *    on the Node.js release and on the moment, and every value does.
 * 4. IDENTITY_LABELS: vigil_build_info's version, revision, branch and Node.js version.
 * 5. UUIDs in label values (the secrets simulator's random cluster ids) become `<uuid-1>`,
 *    `<uuid-2>`..., numbered in the order of the normalized body, so shared ids still read as shared.
 * 6. Loopback ports in label values (a secrets node's address, `node`, names the simulator's
 *    listener) become `127.0.0.1:<port-1>`, `<port-2>`..., numbered alike.
 *
 * Sample lines are sorted within their family (a family lists its targets in the order they first
 * answered) and blank lines dropped. No port appears: targets are named in the config, and the
 * listeners' addresses are in no label but a node's, numbered by rule 6.
 */
export const VARIES = '<varies>';

/** Families whose values follow the clock rather than the estate (rule 2). */
export const TIME_DRIVEN = new Set([
  'vigil_collector_duration_seconds',
  'vigil_upstream_request_duration_seconds',
  'vigil_upstream_answer_wait_seconds_total',
  // The agent simulator's raft log commits an entry every 100 ms, and its goroutine count wobbles each second.
  'scheduler_agent_raft_commit_index',
  'scheduler_agent_raft_applied_index',
  'scheduler_agent_raft_last_log_index',
  'scheduler_agent_runtime_goroutines',
]);

export const RUNTIME = /^(process|nodejs)_/;

/** Families whose label values say which build runs, not what it sees (rule 4). */
export const IDENTITY_LABELS: Record<string, readonly string[]> = { vigil_build_info: ['version', 'revision', 'branch', 'nodejs_version'] };

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const LOOPBACK = /127\.0\.0\.1:\d+/g;

/** Values numbered in the order of the normalized body (rules 5 and 6): how each is found, masked before the sort, and named after it. */
const NUMBERED = [
  { pattern: UUID, mask: '<uuid>', name: (n: number) => `<uuid-${n}>` },
  { pattern: LOOPBACK, mask: '127.0.0.1:<port>', name: (n: number) => `127.0.0.1:<port-${n}>` },
];
const maskNumbered = (v: string) => NUMBERED.reduce((x, k) => x.replace(k.pattern, k.mask), v);

interface Sample {
  name: string;
  labels: Array<[string, string]>;
  value: string;
}

interface Family {
  name: string;
  headers: string[];
  samples: Sample[];
}

function parseSample(line: string): Sample {
  const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
  if (!head) throw new Error(`unparseable exposition line: ${line}`);
  const name = head[1]!;
  let rest = line.slice(name.length);
  const labels: Array<[string, string]> = [];
  if (rest.startsWith('{')) {
    const pair = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/y;
    let at = 1;
    pair.lastIndex = at;
    for (let m = pair.exec(rest); m; m = pair.exec(rest)) {
      labels.push([m[1]!, m[2]!]);
      at = pair.lastIndex;
    }
    if (rest[at] !== '}') throw new Error(`unparseable labels: ${line}`);
    rest = rest.slice(at + 1);
  }
  return { name, labels, value: rest.trim() };
}

function parseFamilies(text: string): { families: Family[]; trailer: string[] } {
  const families: Family[] = [];
  const trailer: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const header = /^# (HELP|TYPE|UNIT) (\S+)/.exec(line);
    if (header) {
      if (families.at(-1)?.name !== header[2]) families.push({ name: header[2]!, headers: [], samples: [] });
      families.at(-1)!.headers.push(line);
    } else if (line.startsWith('#')) trailer.push(line);
    else {
      if (!families.length) families.push({ name: '', headers: [], samples: [] });
      families.at(-1)!.samples.push(parseSample(line));
    }
  }
  return { families, trailer };
}

function masked(family: string, s: Sample): Sample {
  const identity = IDENTITY_LABELS[family] ?? [];
  const counted = s.name.endsWith('_count') || s.labels.some(([k, v]) => k === 'le' && v === '+Inf');
  const timed = family.endsWith('_timestamp_seconds') || (TIME_DRIVEN.has(family) && !counted);
  return {
    name: s.name,
    labels: s.labels.map(([k, v]) => [k, identity.includes(k) ? VARIES : maskNumbered(v)]),
    value: timed ? VARIES : s.value,
  };
}

const labelText = (labels: Array<[string, string]>) => (labels.length ? `{${labels.map(([k, v]) => `${k}="${v}"`).join(',')}}` : '');
const render = (s: Sample) => `${s.name}${labelText(s.labels)} ${s.value}`;
/** A histogram's lines sort together, its buckets in their order (the sort is stable). */
const seriesKey = (s: Sample) => `${labelText(s.labels.filter(([k]) => k !== 'le'))} ${s.name}`;

/** The body with the rules above applied (in either exposition format). */
export function normalizeExposition(text: string): string {
  const { families, trailer } = parseFamilies(text);
  const out: string[] = [];
  const ids = NUMBERED.map(() => new Map<string, string>());
  for (const f of families) {
    // Each line normalized beside its original, whose UUIDs and ports are numbered once the order is fixed.
    const rows = (RUNTIME.test(f.name) ? [] : f.samples).map((s) => {
      const m = masked(f.name, s);
      return { original: s, line: render(m), key: seriesKey(m) };
    });
    rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const lines = rows.map(({ original, line }) =>
      NUMBERED.reduce((l, k, i) => {
        const seen = ids[i]!;
        const found = render(original).match(k.pattern) ?? [];
        for (const id of found) if (!seen.has(id)) seen.set(id, k.name(seen.size + 1));
        return found.reduce((x, id) => x.replace(k.mask, seen.get(id)!), l);
      }, line),
    );
    out.push(...f.headers, ...lines);
  }
  return [...out, ...trailer].join('\n') + '\n';
}

/**
 * What tells two normalized bodies apart, for a reader: each line only one of them has, `-` for the
 * golden's and `+` for the live body's; or the first line where their order differs. Empty when equal.
 */
export function goldenDiff(golden: string, live: string, file: string): string {
  if (golden === live) return '';
  const count = (lines: string[]) => lines.reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map<string, number>());
  const [g, l] = [golden.split('\n'), live.split('\n')];
  const [gc, lc] = [count(g), count(l)];
  const only = (own: Map<string, number>, other: Map<string, number>, sign: string) =>
    [...own].flatMap(([line, n]) => Array<string>(Math.max(0, n - (other.get(line) ?? 0))).fill(`${sign} ${line}`));
  const changes = [...only(gc, lc, '-'), ...only(lc, gc, '+')];
  const at = g.findIndex((line, i) => line !== l[i]);
  const detail = changes.length ? changes.join('\n') : `same lines, in another order from line ${at + 1}:\n- ${g[at]}\n+ ${l[at]}`;
  return `/metrics no longer matches ${file} (\`npm run golden\` rewrites it when the change is meant):\n${detail}\n`;
}
