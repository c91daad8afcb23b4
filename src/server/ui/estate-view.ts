import type { AgentView, Consequences, Estate, OrganizationView, ReplicationKind, SecretsCluster } from '../estate-model.js';
import { ago, badge, esc, section, table, when, type Clock } from './html.js';
import { autopilotSummary, poolsTable, workloadSummary } from './agent-fleet-view.js';
import { nodesSummary, nodesTable } from './secrets-nodes-view.js';
import { snapshotsLine } from './snapshots-view.js';
import { tokenLine } from './token-expiry-view.js';

/** The estate page's live part: problems first, then each upstream kind, healthy things compact. */

const state = (ok: boolean, good = 'ok', bad = 'problem') => badge(ok ? good : bad, ok ? 'ok' : 'bad');
const age = (s: number | null) => (s === null ? '—' : `${ago(s)} ago`);
const problemsCell = (p: string[]) => (p.length ? `<ul class="problems">${p.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>` : badge('healthy', 'ok'));

function kindRows(c: SecretsCluster, k: ReplicationKind): string[] {
  const head = `<th scope="row">${esc(c.target)}</th><td>${esc(k.kind)}</td><td>${esc(k.mode)}${k.state ? ` <span class="muted">${esc(k.state)}</span>` : ''}</td>`;
  const merkle = k.merkleCorrupted ? badge('corrupted', 'bad') : badge('clean', 'ok');
  if (k.primary) {
    const p = k.primary;
    return [
      `<tr>${head}<td>← ${esc(p.address)}</td><td>${state(p.connected, 'connected', 'disconnected')}</td><td>${age(p.heartbeatAgeSeconds)}</td><td>—</td><td>${merkle}</td></tr>`,
    ];
  }
  if (k.secondaries.length === 0) return [`<tr>${head}<td class="muted">no secondaries</td><td></td><td></td><td></td><td>${merkle}</td></tr>`];
  return k.secondaries.map(
    (s) =>
      `<tr class="${s.connected ? '' : 'row-bad'}">${head}<td>→ ${esc(s.id)}</td><td>${state(s.connected, 'connected', 'disconnected')}</td><td>${age(s.heartbeatAgeSeconds)}</td><td>${s.walLag === null ? '—' : esc(s.walLag)}</td><td>${merkle}</td></tr>`,
  );
}

function secrets(e: Estate): string {
  const clusters = e.secrets
    .map((c) => {
      const extra = [
        c.sealed ? badge('sealed', 'bad') : c.sealed === false ? badge('unsealed', 'ok') : '',
        c.drTokenAttempt
          ? c.drTokenAttempt.started
            ? badge(`DR token attempt ${c.drTokenAttempt.progress}/${c.drTokenAttempt.required}`, 'warn')
            : badge('no DR token attempt', 'muted')
          : '',
        c.merkleCheck
          ? c.merkleCheck.corruptedRoot || c.merkleCheck.corruptedTrees > 0
            ? badge(`merkle check: ${c.merkleCheck.corruptedTrees} corrupted trees`, 'bad')
            : badge('merkle check clean', 'ok')
          : '',
      ].filter(Boolean);
      return `<li class="${c.problems.length ? 'card bad' : 'card'}"><h3>${esc(c.target)}</h3>${extra.join(' ')}${nodesSummary(c.nodes)}${snapshotsLine(c.snapshots)}${tokenLine(c.tokenDaysLeft)} ${problemsCell(c.problems)}</li>`;
    })
    .join('');
  const rows = e.secrets.flatMap((c) => c.kinds.flatMap((k) => kindRows(c, k)));
  const sets = e.replicationSets.map(
    (s) =>
      `<tr class="${s.primaries > 1 ? 'row-bad' : ''}"><td>${esc(s.kind)}</td><td><code>${esc(s.set)}</code></td><td>${s.primaries > 1 ? badge(`split brain: ${s.primaries} primaries`, 'bad') : badge(`${s.primaries} primary`, s.primaries === 1 ? 'ok' : 'warn')}</td><td>${s.members.map((m) => `${esc(m.target)} <span class="muted">(${esc(m.mode)})</span>`).join(', ')}</td></tr>`,
  );
  return section(
    'secrets',
    'Secrets clusters',
    `<ul class="cards">${clusters}</ul>` +
      table('Replication topology', ['cluster', 'kind', 'mode', 'peer', 'connection', 'heartbeat', 'WAL lag', 'merkle'], rows, 'no replication enabled') +
      nodesTable(e.secrets) +
      (sets.length ? `<h3>Replication sets</h3>${table('Replication sets', ['kind', 'set', 'primaries', 'members'], sets)}` : ''),
    `${e.secrets.length}`,
  );
}

function agentCard(a: AgentView): string {
  const health = a.health.map((h) => badge(`${h.role} ${h.ok ? 'healthy' : 'unhealthy'}`, h.ok ? 'ok' : 'bad')).join(' ');
  const members = Object.entries(a.members)
    .map(([s, n]) => `${esc(n)} ${esc(s)}`)
    .join(', ');
  const failed = a.failedMembers.length
    ? `<p>Failed: ${a.failedMembers.length}</p>${folded(
        a.failedMembers.map((m) => `<strong>${esc(m)}</strong>`),
        'problems',
      )}`
    : '';
  const raft = a.raftLeader === null ? '' : badge(a.raftLeader ? 'raft leader known' : 'no raft leader', a.raftLeader ? 'ok' : 'bad');
  return `<li class="${a.problems.length ? 'card bad' : 'card'}"><h3>${esc(a.target)} <span class="muted">${a.server === null ? '' : a.server ? 'server' : 'client'}</span></h3>
${a.up ? '' : badge('unreachable', 'bad')} ${health} ${raft}
<p>Members: ${members || '—'} · known servers: ${a.knownServers ?? '—'}</p>${autopilotSummary(a.fleet)}${workloadSummary(a.fleet)}${tokenLine(a.tokenDaysLeft)}${failed}${a.problems.length ? problemsCell(a.problems) : ''}</li>`;
}

const orgCard = (o: OrganizationView) =>
  `<li class="${o.problems.length ? 'card bad' : 'card'}"><h3>${esc(o.organization)}</h3>${o.up ? badge('listing ok', 'ok') : badge('listing down', 'bad')} <p>${esc(o.teams)} teams</p>${
    o.breaches.length
      ? `<p>Access-consistency breaches: ${o.breaches.length}</p>${folded(
          o.breaches.map((b) => `${esc(b.team)}: ${esc(b.rule)}`),
          'problems',
        )}`
      : badge('no access breach', 'ok')
  }</li>`;

function targets(e: Estate, clock: Clock): string {
  const down = e.targets.filter((t) => t.up !== true);
  const up = e.targets.filter((t) => t.up === true);
  const rows = down.map(
    (t) =>
      `<tr class="${t.up === false ? 'row-bad' : ''}"><th scope="row">${esc(t.target)}</th><td>${esc(t.collector)}</td><td>${t.up === null ? badge('pending', 'muted') : badge('down', 'bad')}</td><td>${t.lastError ? `<strong>${esc(t.lastError.reason)}</strong> ${esc(t.lastError.part)}: ${esc(t.lastError.message)}` : '—'}</td><td>${when(t.lastSuccess, clock)}</td></tr>`,
  );
  const compact = up
    .map(
      (t) =>
        `<li title="${esc(t.collector)} · last success ${esc(t.lastSuccess ?? '')}">${badge('up', 'ok')} ${esc(t.collector)} <span class="muted">${esc(t.target)}</span></li>`,
    )
    .join('');
  return section(
    'targets',
    'Targets',
    (rows.length ? table('Targets down', ['target', 'collector', 'state', 'last error', 'last success'], rows) : '') +
      `<details${down.length ? '' : ' open'}><summary>${up.length} of ${e.targets.length} up</summary><ul class="compact">${compact}</ul></details>`,
    [
      `${down.filter((t) => t.up === false).length} down`,
      ...(down.some((t) => t.up === null) ? [`${down.filter((t) => t.up === null).length} pending`] : []),
    ].join(', '),
  );
}

export function alertPathSummary(e: Estate, clock: Clock): string {
  const p = e.alertPath;
  const rejected = Object.entries(p.rejected).filter(([, n]) => n > 0);
  const state =
    p.watchdogHealthy === null
      ? badge('alert sink off', 'muted')
      : !p.watchdogHealthy
        ? badge('alert path BROKEN', 'bad')
        : p.watchdogLastSeen === null
          ? badge('waiting for the first Watchdog', 'muted')
          : badge('alert path healthy', 'ok');
  return `<p>${state}
Watchdog last seen ${when(p.watchdogLastSeen, clock)} · ${esc(p.notificationsTotal)} notifications stored · rejected posts: ${
    rejected.length ? rejected.map(([r, n]) => `${esc(r)} ${esc(n)}`).join(', ') : 'none'
  }</p>`;
}

/** Items a card lists before folding the rest under a count (which opens without JavaScript). */
export const FOLD_AFTER = 5;

/** A list of already escaped items: the first FOLD_AFTER shown, the rest behind "N more". */
function folded(items: string[], cls: string): string {
  const li = (xs: string[]) => xs.map((x) => `<li>${x}</li>`).join('');
  if (items.length <= FOLD_AFTER + 1) return `<ul class="${cls}">${li(items)}</ul>`;
  const rest = items.slice(FOLD_AFTER);
  return `<ul class="${cls}">${li(items.slice(0, FOLD_AFTER))}</ul><details class="fold"><summary>${rest.length} more</summary><ul class="${cls}">${li(rest)}</ul></details>`;
}

/** Problems a thing shows in the summary; the rest are counted, with a link to where they are listed. */
export const SUMMARY_PER_THING = 3;

/** A cluster, agent or organization as the problem summary lists it. */
type Thing = { target: string; problems: string[]; consequences?: Consequences };

/** What a thing's collections report down: shown under its first problem, as that problem's consequence. */
const downOf = (e: Estate, target: string) =>
  e.targets.filter((t) => t.up === false && t.target === target).map((t) => `${t.collector} collection down${t.lastError ? ` (${t.lastError.reason})` : ''}`);

/** A problem line's consequences, as a nested list under it (none, nothing). */
const consequenceList = (lines: string[]) => (lines.length ? `<ul class="consequences">${lines.map((c) => `<li>${esc(c)}</li>`).join('')}</ul>` : '');

function firstProblems(x: Thing, anchor: string, down: string[]): string[] {
  const { target, problems } = x;
  const shown = problems.length > SUMMARY_PER_THING + 1 ? problems.slice(0, SUMMARY_PER_THING) : problems;
  const under = (p: string, i: number) => [...(x.consequences?.find((c) => c.cause === p)?.lines ?? []), ...(i === 0 ? down : [])];
  const rows = shown.map((p, i) => `<li><strong>${esc(target)}</strong>: ${esc(p)}${consequenceList(under(p, i))}</li>`);
  const rest = problems.length - shown.length;
  return rest ? [...rows, `<li><strong>${esc(target)}</strong>: <a href="#${anchor}">${rest} more</a></li>`] : rows;
}

/** Numbers only, from vigil's own series: nothing to escape. */
const shardNote = ({ shard: s }: Estate) =>
  s ? `; this vigil polls shard ${s.ordinal} of ${s.total}: ${s.polled} of the ${s.configured} configured targets (the other replicas poll the rest)` : '';

export function renderEstate(e: Estate, clock: Clock): string {
  const all = [
    ...e.secrets.map((x) => ({ ...x, at: 'secrets' })),
    ...e.agents.map((x) => ({ ...x, at: 'agents' })),
    ...e.organizations.map((x) => ({ ...x, at: 'orgs' })),
  ].flatMap((x) => firstProblems(x, x.at, downOf(e, x.target)));
  const explained = new Set([...e.secrets, ...e.agents, ...e.organizations].filter((x) => x.problems.length > 0).map((x) => x.target));
  const split = e.replicationSets
    .filter((s) => s.primaries > 1)
    .map((s) => `<li>${esc(s.kind)} replication set ${esc(s.set)}: split brain (${s.primaries} primaries)</li>`);
  const down = e.targets
    .filter((t) => t.up === false && !explained.has(t.target))
    .map((t) => `<li>${esc(t.target)}: ${esc(t.collector)} down${t.lastError ? ` (${esc(t.lastError.reason)})` : ''}</li>`);
  const path = e.alertPath.watchdogHealthy === false ? ['<li>alert path broken: the Watchdog alert stopped arriving</li>'] : [];
  const problems = [...path, ...all, ...split, ...down];
  const head = problems.length
    ? `<div class="alert-box bad" role="alert"><h2 id="problems">${e.problems} problem${e.problems > 1 ? 's' : ''}</h2><ul>${problems.join('')}</ul></div>`
    : `<div class="alert-box ok"><h2 id="problems">All clear</h2><p>Every cluster, agent, organization and target is healthy.</p></div>`;
  return `${head}<p class="muted">Collected state as of ${when(e.generatedAt, clock)}${shardNote(e)}</p>${section('alertpath', 'Alert path', alertPathSummary(e, clock))}${secrets(e)}${section(
    'agents',
    'Cluster agents',
    `<ul class="cards">${e.agents.map(agentCard).join('')}</ul>${poolsTable(e.agents)}`,
    `${e.agents.length}`,
  )}${section('orgs', 'Organizations', `<ul class="cards">${e.organizations.map(orgCard).join('')}</ul>`, `${e.organizations.length}`)}${targets(e, clock)}`;
}
