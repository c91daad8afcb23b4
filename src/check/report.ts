import type { Config } from '../config/schema.js';
import type { WebConfig } from '../server/web-config.js';
import { checkFiles, reportLines } from './config-check.js';
import { probeTargets } from './probe.js';

/**
 * The report `--config.check` prints: each target's files (and with `probe`, each endpoint's
 * verdict, indented below it), then a summary. `ok` when nothing needs fixing.
 */
export async function runCheck(config: Config, web: WebConfig | undefined, probe: boolean): Promise<{ text: string; ok: boolean }> {
  const files = await checkFiles(config, web);
  const filesOk = files.every((l) => l.problems.length === 0);
  // Building a target's client reads its CA file: probe only once every file can be read.
  const probed = probe && filesOk ? await probeTargets(config) : [];
  const out: string[] = [];
  for (const l of files) {
    const p = probed.find((x) => x.subject === l.subject);
    out.push(...(p?.problems.length ? [`${l.subject}: ${p.problems.length} of ${p.endpoints.length} endpoints with problems`] : reportLines(l)));
    for (const e of p?.endpoints ?? []) out.push(`  ${e}`);
  }
  if (probe && !filesOk) out.push('endpoints not probed: fix the files above first');
  const failing = files.filter((l) => l.problems.length || probed.find((p) => p.subject === l.subject)?.problems.length).length;
  out.push(
    `${files.length} checked (${files.length - failing} ok, ${failing} with problems)${probe && filesOk ? ', every endpoint that only reads polled once' : ''}`,
  );
  return { text: `${out.join('\n')}\n`, ok: failing === 0 };
}
