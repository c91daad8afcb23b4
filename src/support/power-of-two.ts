/**
 * The smallest of `least`, 2 × `least`, 4 × `least`, … that reaches `wanted`, and never more than
 * `most` (itself `least` times a power of two): how vigil sizes its threads' heaps in steps, so that
 * a thread is replaced by a larger one only a few times as its answers grow.
 */
export function powerOfTwoStep(wanted: number, least: number, most: number): number {
  let size = least;
  while (size < wanted && size < most) size *= 2;
  return size;
}
