import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_FILES, startGoldenEstate, type GoldenEstate, type GoldenFormat } from '../helpers/golden-estate.js';
import { goldenDiff, normalizeExposition, VARIES } from '../helpers/golden-exposition.js';
import { promtoolCheckMetrics } from '../helpers/tools.js';

/**
 * The whole /metrics body of a fixed estate against the committed one (test/fixtures/golden/), as
 * node_exporter keeps collector/fixtures/e2e-output.txt: a renamed, dropped or added series, or a
 * changed value, shows here and in review. `npm run golden` rewrites the files (this file, run with
 * VIGIL_GOLDEN_WRITE=1): commit them with the change that made them differ.
 */
const WRITE = process.env.VIGIL_GOLDEN_WRITE === '1';
const name = (format: GoldenFormat) => relative(process.cwd(), fileURLToPath(GOLDEN_FILES[format]));
let estate: GoldenEstate;
const live = new Map<GoldenFormat, string>();

beforeAll(async () => {
  estate = await startGoldenEstate();
  for (const format of Object.keys(GOLDEN_FILES) as GoldenFormat[]) {
    live.set(format, await estate.scrape(format));
    if (!WRITE) continue;
    mkdirSync(new URL('.', GOLDEN_FILES[format]), { recursive: true });
    writeFileSync(GOLDEN_FILES[format], normalizeExposition(live.get(format)!));
    process.stdout.write(`${name(format)} written\n`);
  }
}, 30_000);
afterAll(async () => {
  await estate?.close();
});

const golden = (format: GoldenFormat) => readFileSync(GOLDEN_FILES[format], 'utf8');

describe('the golden exposition', () => {
  it.each(Object.keys(GOLDEN_FILES) as GoldenFormat[])('%s: /metrics is the committed body, normalized', (format) => {
    const diff = goldenDiff(golden(format), normalizeExposition(live.get(format)!), name(format));
    if (diff) expect.fail(diff);
  });

  it('covers every area, the alert sink and vigil itself, failures included', () => {
    const text = golden('text');
    for (const line of [
      'secrets_merkle_corrupted_pages{target="dr-secondary",tree="1",tree_type="local"} 1',
      'secrets_dr_operation_token_attempt_started{target="dr-secondary"} 1',
      'secrets_sealed{target="sealed"} 1',
      'secrets_replication_up{target="unreachable",kind="dr"} 0',
      'scheduler_agent_members{target="server-1",status="failed"} 1',
      'scheduler_agent_known_servers{target="client-1"} 1',
      'scheduler_agent_host_disk_size_bytes{target="server-1",mount="/"} 53687091200',
      'teams_team_access_inconsistent{target="acme",organization="acme",team="team-0008",rule="manage-projects-without-manage-workspaces"} 1',
      'vigil_alertsink_notifications_total{receiver="watchdog",status="firing"} 1',
      'vigil_collector_runs_total{collector="teams",target="acme"} 2',
    ]) {
      expect(text).toContain(`\n${line}\n`);
    }
  });

  it('passes promtool check metrics, every area and the sink in one body', () => {
    const r = promtoolCheckMetrics(live.get('text')!);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('the comparison', () => {
  const body = [
    '# HELP a_up Whether a answered.',
    '# TYPE a_up gauge',
    'a_up{target="y"} 1',
    'a_up{target="x"} 1',
    '# HELP a_last_run_timestamp_seconds When a ran.',
    '# TYPE a_last_run_timestamp_seconds gauge',
    'a_last_run_timestamp_seconds{target="x"} 1795751390.41',
    '# HELP a_info Which cluster.',
    '# TYPE a_info gauge',
    'a_info{target="x",cluster_id="6e25a4b8-f999-47d6-8f96-ed69591c903f"} 1',
    'a_info{target="y",cluster_id="6e25a4b8-f999-47d6-8f96-ed69591c903f"} 1',
    '# HELP process_open_fds Number of open file descriptors.',
    '# TYPE process_open_fds gauge',
    'process_open_fds 118',
    '',
  ].join('\n');
  const normalized = normalizeExposition(body);
  const differs = (edit: (b: string) => string) => goldenDiff(normalized, normalizeExposition(edit(body)), 'golden.txt');

  it('hides what varies between runs, keeping every series and header', () => {
    expect(normalized).toContain(`a_last_run_timestamp_seconds{target="x"} ${VARIES}\n`);
    expect(normalized).toContain('a_up{target="x"} 1\na_up{target="y"} 1\n');
    expect(normalized).toContain('a_info{target="x",cluster_id="<uuid-1>"} 1\na_info{target="y",cluster_id="<uuid-1>"} 1\n');
    expect(normalized).toContain('# TYPE process_open_fds gauge\n');
    expect(normalized).not.toContain('process_open_fds 118');
    expect(differs((b) => b.replace('1795751390.41', '1795751999.5').replace('118', '120').replaceAll('6e25a4b8', '0000aaaa'))).toBe('');
  });

  it('fails on a renamed, dropped or added series, or a changed value, naming the line', () => {
    expect(differs((b) => b.replaceAll('a_up', 'a_reachable'))).toContain('- a_up{target="x"} 1\n');
    expect(differs((b) => b.replace('a_up{target="y"} 1\n', ''))).toMatch(/^- a_up\{target="y"\} 1$/m);
    expect(differs((b) => b.replace('a_up{target="x"} 1\n', 'a_up{target="x"} 1\na_up{target="z"} 0\n'))).toMatch(/^\+ a_up\{target="z"\} 0$/m);
    expect(differs((b) => b.replace('a_up{target="x"} 1', 'a_up{target="x"} 0'))).toMatch(/^- a_up\{target="x"\} 1\n\+ a_up\{target="x"\} 0$/m);
    expect(differs((b) => b.replace('Whether a answered.', 'Whether a answers.'))).toContain('+ # HELP a_up Whether a answers.');
    expect(differs((b) => b.replace('target="y",cluster_id="6e25a4b8', 'target="y",cluster_id="1111aaaa'))).toContain(
      '+ a_info{target="y",cluster_id="<uuid-2>"} 1',
    );
  });
});
