package io.parityfs.client.workload;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one phase of a workload did: the files whose operation completed, the bytes moved, its
 * wall time (from all workers starting to the last finishing) and a latency summary per
 * operation, in the order the workload names them (e.g. {@code create, write, close}).
 */
public record PhaseResult(String phase, long files, long bytes, long nanos,
    Map<String, LatencyHistogram.Summary> latencies) {
  public PhaseResult {
    latencies = Collections.unmodifiableMap(new LinkedHashMap<>(latencies));
  }

  public double seconds() {
    return nanos / 1e9;
  }

  /** Decimal megabytes (1e6 bytes) per second, as the benchmarks report. */
  public double megabytesPerSecond() {
    return nanos <= 0 ? 0 : bytes / 1e6 / seconds();
  }

  public double filesPerSecond() {
    return nanos <= 0 ? 0 : files / seconds();
  }
}
