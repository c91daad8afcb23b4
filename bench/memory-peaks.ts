/** The peak RSS and heap of this process while a measured stretch runs, sampled every `everyMs`. */
export function memoryPeaks(everyMs: number): { stop: () => { rssBefore: number; peakRss: number; peakHeap: number } } {
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return { rssBefore, peakRss, peakHeap };
    },
  };
}
