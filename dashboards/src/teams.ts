import { dashboard, type DashboardSettings } from './common.js';

const T = 'target=~"$target"';

export function teamsDashboard(settings: DashboardSettings) {
  return dashboard('teams', 'Teams of each watched organization: counts, sizes, organization-wide permissions and consistency.', 'teams_up', settings)
    .row('Overview')
    .stat({
      title: 'Listings up',
      description: 'Share of organizations whose last full team listing succeeded (teams_up).',
      unit: 'percentunit',
      queries: [{ expr: `avg(teams_up{${T}})` }],
    })
    .stat({
      title: 'Teams',
      description: 'Teams across the selected organizations.',
      unit: 'short',
      queries: [{ expr: `sum(teams_organization_teams{${T}})` }],
    })
    .stat({
      title: 'Inconsistent teams',
      description: 'Teams that break an organization-access consistency rule.',
      unit: 'short',
      queries: [{ expr: `count(teams_team_access_inconsistent{${T}} == 1) or vector(0)` }],
    })
    .stat({
      title: 'Rate limited',
      description: '429 answers from the service in the time range.',
      unit: 'short',
      queries: [{ expr: `sum(increase(vigil_upstream_rate_limited_total{${T}}[$__range])) or vector(0)` }],
    })
    .row('Teams')
    .timeseries({
      title: 'Teams per organization and visibility',
      description: 'Number of teams by visibility (secret, organization).',
      unit: 'short',
      queries: [{ expr: `teams_organization_teams{${T}}`, legend: '{{organization}} {{visibility}}' }],
    })
    .table({
      title: 'Largest teams',
      description: 'The ten teams with the most users.',
      unit: 'short',
      queries: [{ expr: `topk(10, teams_team_users{${T}})` }],
    })
    .row('Access holders')
    .timeseries({
      title: 'Share of teams lost within an hour',
      description: 'Drop of the team count from its highest in the last hour, against loss_alert_fraction; TeamsCountDropped pages above it for 10m.',
      unit: 'percentunit',
      queries: [
        {
          expr: `1 - sum by (target, organization) (teams_organization_teams{${T}}) / max_over_time(sum by (target, organization) (teams_organization_teams{${T}})[1h:1m])`,
          legend: '{{organization}} lost',
        },
        { expr: `teams_loss_alert_ratio{${T}}`, legend: '{{organization}} alert above' },
      ],
    })
    .timeseries({
      title: 'Owners team users',
      description:
        'users-count of the owners team (owners_team); TeamsOwnersDropped pages when more than loss_alert_fraction of them go within an hour. Empty when the token sees no such team.',
      unit: 'short',
      mayBeEmpty: true,
      queries: [{ expr: `teams_owners_team_users{${T}}`, legend: '{{organization}}' }],
    })
    .row('Organization access')
    .timeseries({
      title: 'Holders of each organization permission',
      description: 'Teams holding each organization-access permission.',
      unit: 'short',
      queries: [{ expr: `teams_organization_access_teams{${T}}`, legend: '{{organization}} {{permission}}' }],
    })
    .table({
      title: 'Inconsistencies',
      description: 'Teams that break a consistency rule of the service, and which rule.',
      unit: 'none',
      queries: [{ expr: `teams_team_access_inconsistent{${T}} == 1` }],
    });
}
