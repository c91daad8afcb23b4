import { readdirSync, readFileSync } from 'node:fs';

/** What the table shows of an answer of the corpus of real answers (test/fixtures/real/). */
interface Shown {
  endpoint: string;
  part?: string;
  status?: number;
  source: string;
  section?: string;
  version: string;
  derived?: string;
}

const ROOT = new URL('../test/fixtures/real/', import.meta.url);
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Every answer of the corpus, a row each, with their count: test/fixtures/real/README.md's table (`npm run docs`). */
export function renderCorpusTable(): string {
  const files = readdirSync(ROOT, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .sort();
  const rows = files.map((file) => {
    const a = JSON.parse(readFileSync(new URL(file, ROOT), 'utf8')) as Shown;
    const endpoint = `${a.endpoint}${a.part ? `, ${a.part}` : ''} (${a.status ?? 200})`;
    const source = a.section ? `${a.source} — ${a.section}` : a.source;
    return `| \`${file}\` | ${cell(endpoint)} | ${cell(source)} | ${cell(a.version)} | ${a.derived ? 'derived' : 'as published'} |`;
  });
  return [`${files.length} answers:`, '', '| file | endpoint (status) | source | version | copy |', '|---|---|---|---|---|', ...rows].join('\n');
}
