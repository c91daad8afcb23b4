/**
 * `n` items made by `make` on demand, and how many have been read so far: a family whose samples are
 * made one at a time as they are rendered reads one item for its first sample, where one that lists
 * its samples first reads them all.
 */
export function countedItems<T>(n: number, make: (i: number) => T): { items: Iterable<T>; read: () => number } {
  let read = 0;
  const items = {
    *[Symbol.iterator]() {
      for (let i = 0; i < n; i++) {
        read++;
        yield make(i);
      }
    },
  };
  return { items, read: () => read };
}
