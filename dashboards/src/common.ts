import {
  DashboardBuilder,
  DashboardLinkType,
  DashboardLinkBuilder,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  RowBuilder,
  VariableRefresh,
  VariableSort,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { ReduceDataOptionsBuilder } from '@grafana/grafana-foundation-sdk/common';
import { DataqueryBuilder, PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as StatBuilder } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as TableBuilder } from '@grafana/grafana-foundation-sdk/table';
import { PanelBuilder as TimeseriesBuilder } from '@grafana/grafana-foundation-sdk/timeseries';

/** Pieces every vigil dashboard shares: variables, links, and panels that always have units and descriptions. */

export const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
export const TAG = 'vigil';

/**
 * What the dashboards take of a user's labels. Their generator (scripts/mixin/) builds it from the
 * mixin config and passes it in: the dashboards import nothing of the tooling that generates them.
 */
export interface DashboardSettings {
  /** Extra matchers on every series of vigil the dashboards read, e.g. `env="prod"`. */
  selector: string;
  /** A label that tells clusters or environments apart: a `cluster` variable when set ('' for none). */
  clusterLabel: string;
  /**
   * Puts `matchers` (e.g. `job=~"$job", instance=~"$instance"`) on every series `expr` reads. An edit
   * on PromQL's syntax tree, which the generator has; the matchers are the dashboard's variables.
   */
  fit: (expr: string, matchers: string) => string;
}

export interface Query {
  expr: string;
  legend?: string;
}

/** Whether a panel should show data in the demo (the end-to-end test checks those that should). */
export interface PanelSpec {
  title: string;
  description: string;
  unit: string;
  queries: Query[];
  /** Empty in a healthy demo by design (e.g. corrupted pages, failed members). */
  mayBeEmpty?: boolean;
  width?: number;
}

function targets(queries: Query[], instant = false) {
  return queries.map((q, i) => {
    const b = new DataqueryBuilder()
      .datasource(DATASOURCE)
      .expr(q.expr)
      .refId(String.fromCharCode(65 + i));
    if (q.legend) b.legendFormat(q.legend);
    if (instant) b.instant().format(PromQueryFormat.Table);
    return b;
  });
}

type Kind = 'timeseries' | 'stat' | 'table';

function panel(kind: Kind, p: PanelSpec) {
  const common = <B extends TimeseriesBuilder | StatBuilder | TableBuilder>(b: B, w: number, h: number): B => {
    b.title(p.title)
      .description(p.description)
      .unit(p.unit)
      .datasource(DATASOURCE)
      .gridPos({ x: 0, y: 0, w: p.width ?? w, h });
    for (const t of targets(p.queries, kind === 'table')) b.withTarget(t);
    // Where no data is the good case (no corruption, no failed member), say so instead of "No data".
    if (p.mayBeEmpty) b.noValue('none');
    return b;
  };
  if (kind === 'stat') return common(new StatBuilder().reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull'])), 6, 4);
  if (kind === 'table') return common(new TableBuilder(), 12, 8);
  return common(new TimeseriesBuilder().lineWidth(1).fillOpacity(10), 12, 8);
}

/** A dashboard being built, which also remembers its panel specs for the tests. */
export class VigilDashboard {
  readonly panels: PanelSpec[] = [];
  constructor(
    readonly uid: string,
    private readonly builder: DashboardBuilder,
    /** Puts the dashboard's variables (and the mixin's selector) on every series a query reads. */
    private readonly fit: (expr: string) => string = (e) => e,
  ) {}
  row(title: string): this {
    this.builder.withRow(new RowBuilder(title));
    return this;
  }
  timeseries(p: PanelSpec): this {
    return this.add('timeseries', p);
  }
  stat(p: PanelSpec): this {
    return this.add('stat', p);
  }
  table(p: PanelSpec): this {
    return this.add('table', p);
  }
  build() {
    return this.builder.build();
  }
  private add(kind: Kind, spec: PanelSpec): this {
    const p = { ...spec, queries: spec.queries.map((q) => ({ ...q, expr: this.fit(q.expr) })) };
    this.panels.push(p);
    this.builder.withPanel(panel(kind, p));
    return this;
  }
}

export const DASHBOARDS = {
  secrets: { uid: 'vigil-secrets-replication', title: 'vigil / Secrets replication' },
  scheduler: { uid: 'vigil-scheduler-agents', title: 'vigil / Scheduler agents' },
  teams: { uid: 'vigil-teams', title: 'vigil / Teams' },
  vigil: { uid: 'vigil-self', title: 'vigil / vigil' },
  telemetry: { uid: 'vigil-upstream-telemetry', title: 'vigil / Upstream telemetry' },
} as const;

/** The variables that pick vigils, in order, with the matchers they put on every query. */
function vigilVariables(settings: DashboardSettings): { variables: QueryVariableBuilder[]; matchers: string } {
  const picked: string[] = settings.selector.trim() === '' ? [] : [settings.selector.trim()];
  const variables: QueryVariableBuilder[] = [];
  const variable = (name: string, label: string, labelName: string) => {
    variables.push(
      new QueryVariableBuilder(name)
        .label(label)
        .datasource(DATASOURCE)
        .query(`label_values(vigil_build_info${picked.length > 0 ? `{${picked.join(', ')}}` : ''}, ${labelName})`)
        .refresh(VariableRefresh.OnTimeRangeChanged)
        .sort(VariableSort.AlphabeticalAsc)
        .multi(true)
        .includeAll(true)
        .allValue('.*'),
    );
    picked.push(`${labelName}=~"$${name}"`);
  };
  if (settings.clusterLabel !== '') variable('cluster', 'Cluster', settings.clusterLabel);
  variable('job', 'Job', 'job');
  variable('instance', 'vigil', 'instance');
  return { variables, matchers: picked.join(', ') };
}

/**
 * A dashboard with the `datasource`, `job`, `instance` (and, with a cluster label, `cluster`)
 * and `target` variables, a fixed uid, and links to the other vigil dashboards (by tag, keeping
 * time range and variables). Every query reads only the vigils the variables pick.
 */
export function dashboard(
  key: Exclude<keyof typeof DASHBOARDS, 'telemetry'>,
  description: string,
  targetMetric: string,
  settings: DashboardSettings,
): VigilDashboard {
  const d = DASHBOARDS[key];
  const { variables, matchers } = vigilVariables(settings);
  const b = new DashboardBuilder(d.title)
    .uid(d.uid)
    .description(description)
    .tags([TAG])
    .editable()
    .refresh('30s')
    .time({ from: 'now-3h', to: 'now' })
    .timezone('browser')
    .withVariable(new DatasourceVariableBuilder('datasource').label('Data source').type('prometheus'));
  for (const v of variables) b.withVariable(v);
  b.withVariable(
    new QueryVariableBuilder('target')
      .label('Target')
      .datasource(DATASOURCE)
      .query(`label_values(${targetMetric}{${matchers}}, target)`)
      .refresh(VariableRefresh.OnTimeRangeChanged)
      .sort(VariableSort.AlphabeticalAsc)
      .multi(true)
      .includeAll(true)
      .allValue('.*'),
  ).link(new DashboardLinkBuilder('vigil dashboards').type(DashboardLinkType.Dashboards).tags([TAG]).asDropdown(true).keepTime(true).includeVars(true));
  return new VigilDashboard(d.uid, b, (expr) => settings.fit(expr, matchers));
}
