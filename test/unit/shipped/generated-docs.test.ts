import { CAUSES } from '../../../src/server/problem-causes.js';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/catalog.js';
import { COLLECTORS } from '../../../src/collectors/index.js';
import { renderMetricsDoc } from '../../../src/metrics/docs.js';
import { FAILURE_CLASSES } from '../../../simulators/alerting/failure-classes/index.js';
import { pagingMatrix } from '../../../scripts/paging/matrix.js';
import { renderPagingDoc } from '../../../scripts/paging/render.js';
import { alertRules } from '../../helpers/rules.js';
import { renderEndpointDeclarationsTable, renderLayersTable, renderPlansTable } from '../../../scripts/architecture-tables.js';
import { renderCorpusTable } from '../../../scripts/corpus-table.js';
import { sectionOf } from '../../../scripts/doc-sections.js';
import { PAGE_CODE, screenshotRecord } from '../../../scripts/status-page-sections.js';
import { PERFORMANCE_RESULTS, performanceResults, renderPerformance } from '../../../scripts/readme-performance.js';

describe('docs/metrics.md', () => {
  it('is what the catalog generates (run `npm run docs` after changing a metric)', () => {
    const committed = readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderMetricsDoc(CATALOG));
  });

  it('lists every family of the catalog', () => {
    const committed = readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8');
    for (const f of CATALOG) expect(committed).toContain(`| \`${f.name}\` |`);
  });
});

describe('docs/paging.md', () => {
  it('is what the shipped rules, routing and intervals generate (run `npm run docs` after changing them)', () => {
    const committed = readFileSync(new URL('../../../docs/paging.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderPagingDoc());
  });

  it('has a row for every alert of the rules', () => {
    // A control names the alert it must not raise: it is no row for that alert.
    const inMatrix = new Set(FAILURE_CLASSES.filter((f) => !f.control).map((f) => f.alert));
    expect(
      alertRules()
        .map((r) => r.alert)
        .filter((a) => !inMatrix.has(a)),
    ).toEqual([]);
  });

  it('reads the routing as Alertmanager does: criticals to the pager and vigil, the Watchdog to the heartbeat and vigil', () => {
    const rows = pagingMatrix();
    for (const r of rows) {
      if (r.control) {
        expect(r.receivers, r.id).toEqual([]);
        continue;
      }
      if (r.severity === 'critical') expect(r.receivers, r.alert).toEqual(['pager', 'vigil']);
      else if (r.alert === 'Watchdog') expect(r.receivers).toEqual(['heartbeat', 'vigil']);
      else expect(r.receivers, r.alert).toEqual(['vigil']);
      // No warning silences a critical: a critical is held only by another critical of its own cause.
      if (r.severity === 'critical')
        for (const by of r.inhibitedBy) {
          expect(
            rows.filter((x) => x.alert === by).map((x) => x.severity),
            `${r.alert} by ${by}`,
          ).toContain('critical');
          expect(
            CAUSES.some((c) => c.alerts.includes(by) && c.explains.some((x) => x.alerts.includes(r.alert))),
            `${r.alert} by ${by}`,
          ).toBe(true);
        }
    }
    // 2m for, with a 15 s poll, 5 s timeout, 30 s scrape, 30 s evaluation and 30 s group_wait.
    expect(rows.find((r) => r.id === 'agent-hung')!.pageWithinSeconds).toBe(15 + 5 + 30 + 30 + 120 + 30);
  });
});

describe('README.md', () => {
  it('states the performance the committed bench results measured (run `npm run docs` after `npm run bench`)', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(sectionOf(readme, 'performance', 'README.md')).toBe(renderPerformance());
  });
  it('states the Node.js versions package.json supports', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const { engines } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    const sentence = /Supported Node\.js:[^]*?\n\n/.exec(readme)?.[0] ?? '';
    expect(sentence).toContain(`\`${engines.node}\``);
    // Each major the range admits is named as supported, from its lowest version.
    for (const [, major, minor, patch] of engines.node.matchAll(/\^(\d+)\.(\d+)\.(\d+)/g)) {
      expect(sentence).toContain(`**${major}**`);
      if (minor !== '0' || patch !== '0') expect(sentence).toContain(`${major}.${minor}.${patch}`);
    }
  });
  it('shows a screenshot of the status page taken after the page last changed, at a revision of this repository', () => {
    const record = screenshotRecord();
    const root = new URL('../../..', import.meta.url);
    expect(spawnSync('git', ['cat-file', '-e', `${record.revision}^{commit}`], { cwd: root }).status, `${record.revision} is no commit here`).toBe(0);
    const changed = spawnSync('git', ['log', '-1', '--format=%cI', '--', ...PAGE_CODE], { cwd: root, encoding: 'utf8' }).stdout.trim();
    expect(
      Date.parse(record.date) >= Date.parse(changed),
      `docs/images/status-page.png was taken ${record.date}, before the page's code changed (${changed}): run \`npm run build && node --import tsx scripts/ui-screenshot.ts\``,
    ).toBe(true);
  });
  it('cites a bench run at a revision this repository holds, so the figures can be reproduced', () => {
    const { revision } = performanceResults().machine;
    expect(revision).toMatch(/^[0-9a-f]{7,40}$/);
    const found = spawnSync('git', ['cat-file', '-e', `${revision}^{commit}`], { cwd: new URL('../../..', import.meta.url) });
    expect(found.status, `bench/results/${PERFORMANCE_RESULTS}.json names ${revision}, which is not a commit of this repository`).toBe(0);
  });
});

describe('docs/architecture.md', () => {
  const doc = readFileSync(new URL('../../../docs/architecture.md', import.meta.url), 'utf8');
  it('shows the layers as layers.cjs declares them (run `npm run docs` after changing them)', () => {
    expect(sectionOf(doc, 'layers', 'docs/architecture.md')).toBe(renderLayersTable());
  });
  it('shows every endpoint as the collectors declare them', () => {
    expect(sectionOf(doc, 'endpoints', 'docs/architecture.md')).toBe(renderEndpointDeclarationsTable());
  });
  it('shows every job as its plan runs it', () => {
    expect(sectionOf(doc, 'plans', 'docs/architecture.md')).toBe(renderPlansTable());
  });
});

describe('the config references', () => {
  // Where each collector's target keys are documented, by hand.
  const REFERENCE: Record<string, string> = { secrets: 'README.md', agents: 'docs/configuration-agents.md', teams: 'docs/configuration-teams.md' };
  it.each(COLLECTORS.map((c) => [c.kind, c] as const))('of %s list every switch of its endpoints, with its default', (kind, c) => {
    const doc = readFileSync(new URL(`../../../${REFERENCE[kind]}`, import.meta.url), 'utf8');
    for (const e of c.endpoints) if (e.switch) expect(doc, `${e.id}: ${e.switch.key}`).toContain(`| \`${e.switch.key}\` | \`${e.switch.default}\` |`);
  });
});

describe('test/fixtures/real/README.md', () => {
  it('lists every answer of the corpus, and counts them (run `npm run docs` after adding one)', () => {
    const readme = readFileSync(new URL('../../fixtures/real/README.md', import.meta.url), 'utf8');
    expect(sectionOf(readme, 'corpus', 'test/fixtures/real/README.md')).toBe(renderCorpusTable());
  });
});

describe('CHANGELOG.md', () => {
  const changelog = readFileSync(new URL('../../../CHANGELOG.md', import.meta.url), 'utf8');
  it('keeps its changes in Keep a Changelog sections, newest first', () => {
    const versions = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]);
    expect(versions[0]).toBe('Unreleased');
    expect(versions).toContain('0.1.0');
  });

  it('names each renamed metric with a new name the catalog has and an old one it no longer has', () => {
    const names = new Set(CATALOG.map((f) => f.name));
    const renames = [...changelog.matchAll(/^\| `([a-z_]+)` \| `([a-z_]+)` \|/gm)].map((m) => [m[1]!, m[2]!] as const);
    expect(renames.length).toBeGreaterThan(0);
    for (const [before, after] of renames) {
      expect(names.has(after), after).toBe(true);
      expect(names.has(before), before).toBe(false);
    }
  });
});
