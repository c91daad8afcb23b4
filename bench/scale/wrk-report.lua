-- Prints wrk's summary as one JSON line, so the benchmark reads numbers rather than wrk's prose.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'wrk-json {"requests":%d,"bytes":%d,"duration_us":%d,"errors":%d,"non_2xx":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.bytes, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency.max))
end
