import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { join } from 'node:path';

export type Row = Record<string, string | number | undefined>;

/** Prints rows as an aligned text table under a title. */
export function printTable(title: string, rows: readonly Row[]): void {
  // every column any row has (the leak check adds some to one size only)
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (!cols.length) return;
  const cell = (v: Row[string]) => (v === undefined ? '' : String(v));
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (cells: string[]) => cells.map((s, i) => (i === 0 ? s.padEnd(width[i] ?? 0) : s.padStart(width[i] ?? 0))).join('  ');
  process.stdout.write(`\n${title}\n${line(cols)}\n${line(width.map((w) => '-'.repeat(w)))}\n`);
  for (const r of rows) process.stdout.write(`${line(cols.map((c) => cell(r[c])))}\n`);
}

/** Where and on what a result was measured: numbers only compare within one such record. */
export function machine(): Row {
  const cpu = /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  const rev = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  return {
    date: new Date().toISOString(),
    revision: rev,
    nproc: availableParallelism(),
    cpu,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.versions.node,
  };
}

/** Writes one measurement's rows as `<dir>/<name>.json`. */
export function writeResult(dir: string, name: string, about: Record<string, unknown>, rows: readonly Row[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify({ bench: name, ...about, rows }, null, 2)}\n`);
}
