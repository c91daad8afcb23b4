import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DASHBOARDS } from '../../../dashboards/src/common.js';
import { renderDashboard } from '../../../dashboards/src/index.js';
import { mixinDashboards, mixinTelemetryDashboards } from '../../../scripts/mixin/dashboards.js';

interface Panel {
  type: string;
  title?: string;
  description?: string;
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: Array<{ expr: string }>;
}

// The optional one on the upstreams' telemetry is held to the same rules, in dashboards/telemetry/.
const dashboards = {
  ...mixinDashboards(),
  ...Object.fromEntries(Object.entries(mixinTelemetryDashboards()).map(([f, d]) => [`telemetry/${f}`, d])),
};

describe.each(Object.entries(dashboards))('dashboards/%s', (file, d) => {
  const json = d.build() as unknown as {
    uid: string;
    panels: Panel[];
    links: Array<{ type: string; tags: string[] }>;
    templating: { list: Array<{ name: string; type: string; query?: unknown }> };
  };

  it('is committed exactly as the generator writes it (run `npm run dashboards`)', () => {
    expect(readFileSync(new URL(`../../../dashboards/${file}`, import.meta.url), 'utf8')).toBe(renderDashboard(d));
  });

  it('has a fixed uid, a datasource and a target variable, and links to the others', () => {
    expect(Object.values(DASHBOARDS).map((x) => x.uid)).toContain(json.uid);
    const vars = json.templating.list;
    expect(vars.find((v) => v.name === 'datasource')?.type).toBe('datasource');
    expect(vars.find((v) => v.name === 'target')?.type).toBe('query');
    expect(json.links).toContainEqual(expect.objectContaining({ type: 'dashboards', tags: ['vigil'] }));
  });

  const panels = json.panels.filter((p) => p.type !== 'row');
  it.each(panels.map((p) => [p.title ?? '?', p] as const))('panel "%s" has a unit, a description and queries', (_t, p) => {
    expect(p.fieldConfig?.defaults?.unit).toBeTruthy();
    expect((p.description ?? '').length).toBeGreaterThan(10);
    expect(p.targets?.length).toBeGreaterThan(0);
  });

  it('uses $__rate_interval (or $__range) in every rate, irate and increase', () => {
    for (const p of panels) {
      for (const t of p.targets ?? []) {
        for (const m of t.expr.matchAll(/\b(rate|irate|increase)\([^[]*\[([^\]]+)\]/g)) {
          expect(['$__rate_interval', '$__range'], `${p.title}: ${t.expr}`).toContain(m[2]);
        }
      }
    }
  });
});

describe('dashboard uids', () => {
  it('are unique', () => {
    const uids = Object.values(dashboards).map((d) => d.uid);
    expect(new Set(uids).size).toBe(uids.length);
  });
});
