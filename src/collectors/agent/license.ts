import { z } from 'zod';
import { family, single, type Family } from '../../metrics/family.js';
import { UpstreamError } from '../../upstream/errors.js';
import { instant, lenient, lenientNonEmptyString } from '../../upstream/schema-helpers.js';
import { optional } from './optional.js';

/**
 * `GET /v1/operator/license` (Nomad Enterprise, operator:read): the licence of the server that
 * answers (not forwarded to the leader since 1.1: each server loads its own licence file). Only the
 * licence's id, product, expiry and termination are kept; the customer and installation ids, flags,
 * modules and features are stripped by the schema. Every field is lenient: one missing or misread
 * costs only its series. A server whose licence is gone answers an empty licence (every time the
 * zero time, which `instant` reads as absent): no series then.
 */
const licence = z.object({
  LicenseID: lenientNonEmptyString,
  Product: lenientNonEmptyString,
  ExpirationTime: lenient(instant),
  TerminationTime: lenient(instant),
});

/** The community edition answers 204 with no body, which reads as undefined. */
export const operatorLicenseResponse = z.preprocess((b) => b ?? {}, z.object({ License: lenient(licence) }));

export type OperatorLicense = z.output<typeof operatorLicenseResponse>;

const FROM = 'from a scheduled poll of /v1/operator/license (Enterprise only)';

export const licenseFamilies: readonly Family<OperatorLicense>[] = [
  family<OperatorLicense>({
    name: 'scheduler_license_expiry_timestamp_seconds',
    help: `When the Enterprise licence of the server that answers expires (its ExpirationTime), as Unix time; absent on the community edition; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((l) => l.License?.ExpirationTime),
  }),
  family<OperatorLicense>({
    name: 'scheduler_license_termination_timestamp_seconds',
    help: `When the Enterprise licence of the server that answers stops working in any capacity (its TerminationTime, at or after the expiry), as Unix time; absent when the answer has none; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target'],
    samples: single((l) => l.License?.TerminationTime),
  }),
  family<OperatorLicense>({
    name: 'scheduler_license_info',
    help: `Identity of the Enterprise licence of the server that answers (always 1): its licence id and product, to tell a replaced licence and servers that carry different ones; absent when the answer names no licence id; ${FROM}.`,
    type: 'gauge',
    section: 'agent',
    labels: ['target', 'license_id', 'product'],
    samples: (l) => (l.License?.LicenseID === undefined ? [] : [{ labels: { license_id: l.License.LicenseID, product: l.License.Product ?? '' }, value: 1 }]),
  }),
];

/**
 * No licence to read: the community edition (204 with no body: its GET handler writes the status and
 * returns; 501 "Nomad Enterprise only endpoint" is what it answers the enterprise-only calls), a
 * release before the endpoint (0.12: 404), a token without operator:read (403), or a client that
 * reaches no server to forward to.
 */
const licenseNotApplicable = (err: { status?: number; message: string }): boolean =>
  err.status === 204 ||
  err.status === 403 ||
  err.status === 404 ||
  (err.status === 501 && /enterprise only/i.test(err.message)) ||
  (err.status === 500 && /no (known )?servers/i.test(err.message));

/** The licence of the server that answers; the community edition's empty answer is "not applicable", never a failure. */
export const licenseEndpoint = optional('license', {
  path: '/v1/operator/license',
  schema: operatorLicenseResponse,
  read: async (get) => {
    const answer = await get();
    if (answer.status === 204) throw new UpstreamError('http_4xx', 'agent/license: no licence (204 No Content: the community edition)', 204);
    return answer.value;
  },
  needs: 'operator:read',
  families: licenseFamilies,
  notApplicable: {
    test: licenseNotApplicable,
    means:
      'the community edition (204 No Content, or 501 "Nomad Enterprise only endpoint"), a release without the endpoint (404, before 0.12), the token lacks operator:read (403), or the agent reaches no server (500 "no servers")',
  },
  default: true,
  help: 'when the Enterprise licence expires and terminates (operator:read); on by default: one small request per run, and not applicable on the community edition, which answers 204 with no body',
});
