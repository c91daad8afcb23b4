/** A cumulative histogram accumulator (what prom-client's Histogram does, without a registry). */
export class HistogramData {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = bounds.map(() => 0);
  }
  observe(v: number): void {
    this.sum += v;
    this.count += 1;
    this.bounds.forEach((b, i) => {
      if (v <= b) this.counts[i] = (this.counts[i] ?? 0) + 1;
    });
  }
}
