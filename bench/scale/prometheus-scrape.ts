import { startPrometheus } from '../../simulators/alerting/service.js';

/** What a real Prometheus saw scraping vigil. */
export interface PrometheusScrape {
  /** Scrapes it made of vigil in the window. */
  scrapes: number;
  /** The lowest `up` among them: 1 only when every scrape succeeded within the timeout. */
  up_min: number;
  scrape_duration_max_s: number;
  scrape_duration_last_s: number;
  samples_scraped: number;
}

const SCRAPE_TIMEOUT_S = 10;

/**
 * Debian's Prometheus (the same start as the demo's and the end-to-end tests') scraping vigil's
 * /metrics every `scrape_timeout` seconds, as it does with the default gzip `Accept-Encoding`,
 * for `scrapes` scrapes; then its own view of them from its query API, and stopped by PID.
 */
export async function prometheusScrape(metricsUrl: string, scrapes = 3): Promise<PrometheusScrape> {
  const target = new URL(metricsUrl);
  const prom = await startPrometheus({
    global: { scrape_interval: `${SCRAPE_TIMEOUT_S}s`, scrape_timeout: `${SCRAPE_TIMEOUT_S}s` },
    scrape_configs: [{ job_name: 'vigil', metrics_path: target.pathname, static_configs: [{ targets: [target.host] }] }],
  });
  try {
    const query = async (q: string): Promise<number[]> => {
      const res = await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent(q)}`);
      const body = (await res.json()) as { data?: { result?: Array<{ value: [number, string] }> } };
      return (body.data?.result ?? []).map((r) => Number(r.value[1]));
    };
    // A scrape of a million series and its append can outlast the interval, and Prometheus then
    // skips ticks: the window covers the whole run so far, and the wait allows four intervals a scrape.
    const started = Date.now();
    const window = () => `${Math.ceil((Date.now() - started) / 1000) + 2 * SCRAPE_TIMEOUT_S}s`;
    const count = async () => (await query(`count_over_time(up{job="vigil"}[${window()}])`))[0] ?? 0;
    const deadline = started + (4 * scrapes + 2) * SCRAPE_TIMEOUT_S * 1000;
    while ((await count()) < scrapes) {
      if (Date.now() > deadline) throw new Error(`prometheus made fewer than ${scrapes} scrapes of vigil:\n${prom.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    const [up] = await query(`min_over_time(up{job="vigil"}[${window()}])`);
    const [max] = await query(`max_over_time(scrape_duration_seconds{job="vigil"}[${window()}])`);
    const [last] = await query('scrape_duration_seconds{job="vigil"}');
    const [samples] = await query('scrape_samples_scraped{job="vigil"}');
    const round = (n = Number.NaN) => Math.round(n * 1000) / 1000;
    return {
      scrapes: await count(),
      up_min: up ?? 0,
      scrape_duration_max_s: round(max),
      scrape_duration_last_s: round(last),
      samples_scraped: samples ?? 0,
    };
  } finally {
    await prom.stop();
  }
}
