import { describe, expect, it } from 'vitest';
import { hostFamilies } from '../../../../src/collectors/agent/host.js';
import { agentHostResponse } from '../../../../src/collectors/agent/host.js';
import { parseBody } from '../../../../src/upstream/parse.js';
import { series, seriesOf } from '../../../helpers/exposition.js';
import { fixture } from '../../../helpers/fixtures.js';
import { parseFailure, renderSamples } from '../../../helpers/render.js';

const parse = (body: unknown) => parseBody(agentHostResponse, body, 'agent/host');
const samples = (body: unknown) => renderSamples(hostFamilies, parse(body), { target: 's1' });
const disk = (name: string, mount: string) => series(`scheduler_agent_host_disk_${name}_bytes`, { target: 's1', mount });

describe('GET /v1/agent/host', () => {
  const s = samples(fixture('agent/host.json'));

  it('turns the disk sizes from MB into bytes (MB × 1024 × 1024)', () => {
    expect(s.get(disk('size', '/'))).toBe(53_687_091_200);
    expect(s.get(disk('used', '/'))).toBe(9_663_676_416);
    expect(s.get(disk('size', '/var/lib/nomad'))).toBe(214_748_364_800);
    expect(s.get(disk('used', '/var/lib/nomad'))).toBe(64_424_509_440);
  });

  it('exports nothing else of the host (environment, network, hosts)', () => {
    expect([...s.keys()].every((k) => k.startsWith('scheduler_agent_host_disk_'))).toBe(true);
    expect(s.size).toBe(4);
  });

  it('reads sizes sent as strings, leaves out a missing one, and accepts a host without disks', () => {
    const partial = samples({ HostData: { Disk: { '/data': { DiskMB: '10', UsedMB: null } } } });
    expect(partial.get(disk('size', '/data'))).toBe(10_485_760);
    expect(seriesOf(partial, 'scheduler_agent_host_disk_used_bytes').size).toBe(0);
    expect(samples({ HostData: { Disk: null } }).size).toBe(0);
  });

  it('without HostData the body is the host data itself (the local form)', () => {
    expect(samples({ OS: { name: 'x' }, Disk: { '/': { DiskMB: 10, UsedMB: 5 } } }).get(disk('size', '/'))).toBe(10 * 1024 * 1024);
    expect(samples({ AgentID: 'x' }).size).toBe(0);
  });

  it('a size that is not a number drops only that series', () => {
    const s = samples({ HostData: { Disk: { '/': { DiskMB: 'lots', UsedMB: 5 } } } });
    expect(s.has(disk('size', '/'))).toBe(false);
    expect(s.get(disk('used', '/'))).toBe(5 * 1024 * 1024);
  });

  it.each([['not an object', [1, 2], 'HostData']])('%s is a schema failure naming the field', (_what, body, field) => {
    const err = parseFailure(() => parse(body));
    expect(err.reason).toBe('schema');
    expect(err.message).toContain(`agent/host: unexpected response: ${field}`);
  });
});
