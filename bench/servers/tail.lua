-- Appended to a wrk script by bench/lib.ts: prints the latency percentiles wrk --latency leaves out (p99.9), in µs.
done = function(summary, latency, requests)
  io.write(string.format("TAIL %d %d %d %d %d\n", latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9), latency.max))
end
