/**
 * The two large answers the decoding benches read, built from the committed fixtures: a page of 100
 * teams (198 kB; the service's own pages, with longer names, run ~270 kB) and a gossip pool of 5,000
 * members (1.9 MB).
 */
import { fixture } from '../../test/helpers/fixtures.js';

const template = (fixture('teams/page-1-of-3.json') as { data: Array<Record<string, unknown>> }).data[1] as Record<string, unknown>;
const users = Array.from({ length: 30 }, (_, i) => ({ id: `user-${String(i).padStart(6, '0')}xx`, type: 'users' }));
export const teamsPage = Buffer.from(
  JSON.stringify({
    data: Array.from({ length: 100 }, (_, i) => ({
      ...template,
      id: `team-${i}`,
      attributes: { ...(template.attributes as object), name: `team-${i}` },
      relationships: { users: { data: users }, 'authentication-token': { meta: {} } },
    })),
    links: { self: 'x', first: 'x', prev: null, next: '/api/v2/organizations/o/teams?page%5Bnumber%5D=2&page%5Bsize%5D=100', last: 'x' },
    meta: { pagination: { 'current-page': 1, 'next-page': 2, 'prev-page': null, 'total-pages': 20, 'total-count': 2000 } },
  }),
);
const pool = fixture('agent/members-server.json') as { Members: Array<Record<string, unknown>> };
export const membersBody = Buffer.from(
  JSON.stringify({ ...pool, Members: Array.from({ length: 5000 }, (_, i) => ({ ...pool.Members[0], Name: `node-${i}` })) }),
);
