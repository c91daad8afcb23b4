import type { TargetKind } from '../../src/collectors/index.js';
import type { AnyEndpoint } from '../../src/collectors/endpoint.js';
import { ENDPOINTS } from '../../src/collectors/index.js';

/** A target's config switches (`key: true|false`), each endpoint of `kind` on when `on` says so. Free of the test runner: the benches use it too. */
export const switchesOf = (kind: TargetKind, on: (e: AnyEndpoint) => boolean): string[] =>
  ENDPOINTS.filter((e) => e.kind === kind && e.endpoint.switch).map((e) => `${e.endpoint.switch?.key}: ${on(e.endpoint)}`);
