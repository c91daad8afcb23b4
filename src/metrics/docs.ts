import type { AnyFamily, Section } from './family.js';

const SECTION_TITLES: Record<Section, string> = {
  secrets: 'Secrets service (replication and merkle check)',
  agent: 'Cluster agents',
  teams: 'Team management',
  alertsink: 'Alert sink',
  vigil: "vigil's own collections and upstream requests",
};

/** docs/metrics.md, generated from the catalog so the reference cannot drift from what is exported. */
export function renderMetricsDoc(catalog: readonly AnyFamily[]): string {
  const lines = [
    '# Metrics reference',
    '',
    '<!-- Generated from src/catalog.ts by `npm run docs`; a test fails when this file is out of date. -->',
    '',
    'Every series below is served on `/metrics` from the snapshot of the latest scheduled collections:',
    'a scrape never waits on an upstream. When a collection part fails, its data series disappear (they',
    'are not left stale) and only its `_up` series and the `vigil_collector_*` series remain.',
    '`target` is the configured target name. The Node.js runtime metrics (`process_*`, `nodejs_*`) of',
    'prom-client are served too and are not listed here.',
    '',
  ];
  const sections = [...new Set(catalog.map((f) => f.section))];
  for (const section of sections) {
    lines.push(`## ${SECTION_TITLES[section]}`, '', '| metric | type | labels | meaning |', '|---|---|---|---|');
    for (const f of catalog.filter((x) => x.section === section)) {
      const labels = f.labels.length ? f.labels.map((l) => `\`${l}\``).join(', ') : '—';
      lines.push(`| \`${f.name}\` | ${f.type} | ${labels} | ${f.help.replace(/\|/g, '\\|')} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
