import { describe, expect, it } from 'vitest';
import { collectPart } from '../../../src/jobs/part.js';
import { family, single } from '../../../src/metrics/family.js';
import { UpstreamError } from '../../../src/upstream/errors.js';

const up = family<boolean>({ name: 'x_up', help: 'h', type: 'gauge', section: 'vigil', labels: ['target'], samples: single((ok) => ok) });
const value = family<number>({ name: 'x_value', help: 'h', type: 'gauge', section: 'vigil', labels: ['target'], samples: single((n) => n) });
const onlyServers = (err: UpstreamError) => err.status === 501;
const spec = (fetch: () => Promise<number>) => ({ part: 'p', context: { target: 't' }, fetch, families: [value], up, notApplicable: onlyServers });
/** A part whose fetch fails with this HTTP status. */
const failing = (status: number, message: string) =>
  spec(() => Promise.reject(new UpstreamError(status >= 500 ? 'http_5xx' : 'http_4xx', `p: HTTP ${status}: ${message}`, status)));

describe('collectPart', () => {
  it('renders the data and _up 1 after a success', async () => {
    const o = await collectPart(spec(async () => 7));
    expect(o.error).toBeUndefined();
    expect([...o.group.values()].join('')).toBe('x_value{target="t"} 7\nx_up{target="t"} 1\n');
  });

  it('keeps only _up 0 and the error after a failure', async () => {
    const o = await collectPart(failing(500, 'rpc error'));
    expect(o.error?.reason).toBe('http_5xx');
    expect(o.notApplicable).toBeUndefined();
    expect([...o.group.values()].join('')).toBe('x_up{target="t"} 0\n');
  });

  it('renders nothing for a value the same as the last committed one, and everything for another value or other labels', async () => {
    const last = { value: { n: 7, kept: [1, 2] }, context: { target: 't' } };
    const fetch = (v: { n: number; kept: number[] }) => async () => v;
    const obj = family<{ n: number }>({ name: 'x_value', help: 'h', type: 'gauge', section: 'vigil', labels: ['target'], samples: single((v) => v.n) });
    const same = await collectPart({ part: 'p', context: { target: 't' }, fetch: fetch({ n: 7, kept: [1, 2] }), families: [obj], up, last });
    expect(same.unchanged).toBe(true);
    expect(same.group.size).toBe(0);
    expect(same.value).toBe(last.value);
    const other = await collectPart({ part: 'p', context: { target: 't' }, fetch: fetch({ n: 8, kept: [1, 2] }), families: [obj], up, last });
    expect(other.unchanged).toBeUndefined();
    expect([...other.group.values()].join('')).toBe('x_value{target="t"} 8\nx_up{target="t"} 1\n');
    const moved = await collectPart({ part: 'p', context: { target: 'u' }, fetch: fetch({ n: 7, kept: [1, 2] }), families: [obj], up, last });
    expect(moved.unchanged).toBeUndefined();
    expect([...moved.group.values()].join('')).toBe('x_value{target="u"} 7\nx_up{target="u"} 1\n');
  });

  it('exports nothing, not even _up, and reports no failure when the upstream says the part does not apply', async () => {
    const o = await collectPart(failing(501, 'Invalid method'));
    expect(o.error).toBeUndefined();
    expect(o.notApplicable).toBe(true);
    expect(o.group.size).toBe(0);
  });
});
