import { describe, expect, it } from 'vitest';
import { agentPlan } from '../../../../src/collectors/agent/collector.js';
import { licenseEndpoint, licenseFamilies, operatorLicenseResponse } from '../../../../src/collectors/agent/license.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { parseBody } from '../../../../src/upstream/parse.js';
import { series, seriesOf } from '../../../helpers/exposition.js';
import { renderSamples } from '../../../helpers/render.js';

const parse = (body: unknown) => parseBody(operatorLicenseResponse, body, 'agent/license');
const samples = (body: unknown) => renderSamples(licenseFamilies, parse(body), { target: 's1' });
const one = (name: string, labels: Record<string, string> = {}) => series(`scheduler_license_${name}`, { target: 's1', ...labels });
const notApplicable = (status: number, message: string) => licenseEndpoint.notApplicable?.test(new UpstreamError('http_4xx', message, status));

const licence = (over: Record<string, unknown> = {}) => ({
  KnownLeader: true,
  LastContact: 0,
  LastIndex: 0,
  License: {
    LicenseID: 'a4ef3b0e-2d55-4a8e-9bf0-0a6d4c7f2a11',
    CustomerID: 'customer-of-vigil',
    InstallationID: '*',
    IssueTime: '2026-01-01T00:00:00Z',
    StartTime: '2026-01-01T00:00:00Z',
    ExpirationTime: '2027-01-01T00:00:00Z',
    TerminationTime: '2027-01-08T00:00:00Z',
    Product: 'nomad',
    Flags: {},
    Modules: ['governance-policy'],
    Features: ['Namespaces'],
    ...over,
  },
  ConfigOutdated: false,
});

describe('GET /v1/operator/license', () => {
  it('exports the expiry, the termination and the licence id and product', () => {
    const s = samples(licence());
    expect(s.get(one('expiry_timestamp_seconds'))).toBe(Date.parse('2027-01-01T00:00:00Z') / 1000);
    expect(s.get(one('termination_timestamp_seconds'))).toBe(Date.parse('2027-01-08T00:00:00Z') / 1000);
    expect(s.get(one('info', { license_id: 'a4ef3b0e-2d55-4a8e-9bf0-0a6d4c7f2a11', product: 'nomad' }))).toBe(1);
    expect(s.size).toBe(3);
  });

  it('never exports the customer or installation id, the modules or the features', () => {
    const text = [...samples(licence()).keys()].join('\n');
    expect(text).not.toMatch(/customer|governance|Namespaces/);
  });

  it('an absent or misread field costs only its own series', () => {
    const s = samples(licence({ TerminationTime: 'soon', LicenseID: 7 }));
    expect(s.get(one('expiry_timestamp_seconds'))).toBe(Date.parse('2027-01-01T00:00:00Z') / 1000);
    expect(seriesOf(s, 'scheduler_license_termination_timestamp_seconds').size).toBe(0);
    expect(seriesOf(s, 'scheduler_license_info').size).toBe(0);
  });

  it('an empty licence (every time the zero time, as a server whose licence is gone answers) exports nothing', () => {
    const empty = { LicenseID: '', CustomerID: '', ExpirationTime: '0001-01-01T00:00:00Z', TerminationTime: '0001-01-01T00:00:00Z', Product: '' };
    expect(samples({ License: empty }).size).toBe(0);
    expect(samples({ License: null }).size).toBe(0);
  });

  it('reads the community edition’s empty body as an answer without a licence', () => {
    expect(samples(undefined).size).toBe(0);
  });

  it.each([
    [204, 'agent/license: no licence (204 No Content: the community edition)', true],
    [501, 'Nomad Enterprise only endpoint', true],
    [403, 'Permission denied', true],
    [500, 'no servers', true],
    [500, 'No cluster leader', false],
    [501, 'Invalid method', false],
    [404, '404 page not found', true],
  ])('an answer %d "%s" is not applicable: %s', (status, message, expected) => {
    expect(notApplicable(status, message)).toBe(expected);
  });

  it('is on by default, needs operator:read, and is a step of the agent plan', () => {
    expect(licenseEndpoint.switch).toMatchObject({ key: 'license', default: true });
    expect(licenseEndpoint.needs).toBe('operator:read');
    expect(licenseEndpoint.path).toBe('/v1/operator/license');
    expect(agentPlan.steps.some((s) => s.kind === 'call' && s.endpoint.id === 'agent/license')).toBe(true);
  });
});
