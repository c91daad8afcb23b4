/**
 * A simulator profile answers in the shapes an older release of its upstream sends, so the demo and
 * the tests can run vigil against them. Each simulator names its own profiles; `current` is always
 * one of them and the default.
 */
export function checkProfile<P extends string>(name: string | undefined, known: readonly P[]): P {
  const wanted = name ?? 'current';
  const found = known.find((p) => p === wanted);
  if (found === undefined) throw new Error(`unknown profile "${wanted}": one of ${known.join(', ')}`);
  return found;
}
