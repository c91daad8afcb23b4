import { describe, expect, it } from 'vitest';
import { buildEstate } from '../../../../src/server/estate.js';
import { renderEstate } from '../../../../src/server/ui/estate-view.js';
import { address, toleranceBadge } from '../../../../src/server/ui/html.js';

/** The estate page's order and colours: cards in a stable order, a quorum's normal state not a warning, one row per region's pool. */

const NOW = Date.parse('2026-11-23T10:00:00Z');

/** Two agents of one region listing its six client nodes, a third in another region, clusters healthy and not. */
const LINES = [
  'scheduler_agent_up{target="server-1"} 1',
  'scheduler_agent_up{target="client-1"} 1',
  'scheduler_agent_up{target="east-1"} 1',
  'scheduler_agent_info{target="server-1",name="server-1",region="global",datacenter="dc1",version="1.10.1",server="true"} 1',
  'scheduler_agent_info{target="client-1",name="client-1",region="global",datacenter="dc1",version="1.10.1",server="false"} 1',
  'scheduler_agent_info{target="east-1",name="east-1",region="east",datacenter="dc2",version="1.10.1",server="true"} 1',
  ...['server-1', 'client-1'].flatMap((t) => [
    `scheduler_nodes{target="${t}",datacenter="dc1",node_pool="default",node_class="",status="ready",eligibility="eligible",drain="false"} 4`,
    `scheduler_nodes{target="${t}",datacenter="dc1",node_pool="gpu",node_class="",status="ready",eligibility="eligible",drain="false"} 2`,
  ]),
  'scheduler_nodes{target="east-1",datacenter="dc2",node_pool="default",node_class="",status="ready",eligibility="eligible",drain="false"} 3',
  'scheduler_agent_autopilot_failure_tolerance{target="server-1"} 1',
  'scheduler_agent_autopilot_voters{target="server-1"} 3',
  ...['perf-primary', 'dr-primary', 'dr-secondary', 'perf-secondary'].flatMap((t) => [
    `secrets_sealed{target="${t}"} 0`,
    `secrets_replication_up{target="${t}",kind="dr"} 1`,
  ]),
  'secrets_replication_up{target="broken",kind="dr"} 0',
  'secrets_sealed{target="broken"} 0',
];

/** The lines in an order of their own: a snapshot lists its targets in whatever order they were collected. */
function shuffled(lines: readonly string[], seed: number): string {
  const out = [...lines];
  let x = seed;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return `${out.join('\n')}\n`;
}

const cards = (html: string) => [...html.matchAll(/<li class="card[^"]*"><h3>([^<]+)/g)].map((m) => m[1]!.trim());

describe('the order of the cards', () => {
  it('is the same whatever order the snapshot lists its targets in: problems first, then by name', () => {
    const orders = [1, 2, 3, 4, 5].map((seed) => cards(renderEstate(buildEstate(shuffled(LINES, seed), [], NOW), { now: NOW })));
    for (const o of orders) expect(o).toEqual(orders[0]);
    expect(orders[0]).toEqual(['broken', 'dr-primary', 'dr-secondary', 'perf-primary', 'perf-secondary', 'client-1', 'east-1', 'server-1']);
  });
});

describe('the failure tolerance badge', () => {
  it('is ok at what the voters allow, amber below it, red at 0', () => {
    expect(toleranceBadge(1, 3)).toBe('<span class="badge ok">failure tolerance 1</span>');
    expect(toleranceBadge(2, 5)).toBe('<span class="badge ok">failure tolerance 2</span>');
    expect(toleranceBadge(1, 5)).toBe('<span class="badge warn">failure tolerance 1</span>');
    expect(toleranceBadge(0, 3)).toBe('<span class="badge bad">failure tolerance 0</span>');
    expect(toleranceBadge(0, 1)).toBe('<span class="badge bad">failure tolerance 0</span>');
    expect(toleranceBadge(1, null)).toBe('<span class="badge ok">failure tolerance 1</span>');
  });

  it('shows a healthy three-voter region in no warning colour', () => {
    const html = renderEstate(buildEstate(shuffled(LINES, 1), [], NOW), { now: NOW });
    expect(html).toContain('<span class="badge ok">failure tolerance 1</span>');
    expect(html).not.toContain('badge warn');
  });
});

describe('an address', () => {
  it('may break after // and before each dot of its host, never inside the last part and its port', () => {
    expect(address('https://node-1.secrets.example.com:8200')).toBe('<span class="addr">https://<wbr>node-1<wbr>.secrets<wbr>.example<wbr>.com:8200</span>');
    expect(address('http://127.0.0.1:38123/v1')).toBe('<span class="addr">http://<wbr>127<wbr>.0<wbr>.0<wbr>.1:38123<wbr>/v1</span>');
    expect(address('<img src=x>:1')).toBe('<span class="addr">&#60;img src=x&#62;:1</span>');
  });
});

describe('the client nodes table', () => {
  it('has one row per region and pool, however many agents list it', () => {
    const html = renderEstate(buildEstate(shuffled(LINES, 2), [], NOW), { now: NOW });
    const rows = [...html.matchAll(/<tr class=""><th scope="row">([^<]*)<\/th><td>([^<]*)<\/td><td>(\d+)<\/td>.*?<td class="muted">([^<]*)<\/td><\/tr>/g)].map(
      (m) => m.slice(1).join(' | '),
    );
    expect(rows).toEqual(['east | default | 3 | east-1', 'global | default | 4 | client-1, server-1', 'global | gpu | 2 | client-1, server-1']);
  });
});
