import type { Family, Labels } from '../../src/metrics/family.js';
import { renderGroup } from '../../src/metrics/render.js';
import { UpstreamError } from '../../src/upstream/errors.js';
import { parseExposition } from './exposition.js';
import { thrown } from './throws.js';

/** Renders families over one input as vigil would, read back into `name{labels}` → value. */
export function renderSamples<I>(families: readonly Family<I>[], input: I, context: Labels): Map<string, number> {
  return parseExposition([...renderGroup(families, input, context).values()].join(''));
}

/** The UpstreamError a parse throws; fails the test when it throws nothing or something else. */
export const parseFailure = (parse: () => unknown): UpstreamError => thrown(UpstreamError, parse);
