package io.parityfs.raid.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** The passes of one throughput measurement; every figure reported is a median over them. */
final class Passes {
  private final List<Timed> passes = new ArrayList<>();

  void add(Timed t) {
    passes.add(t);
  }

  boolean isEmpty() {
    return passes.isEmpty();
  }

  double mbps() {
    return median(Timed::mbps);
  }

  double cores() {
    return median(Timed::cores);
  }

  double commitShare() {
    return median(Timed::commitShare);
  }

  /** MB/s of each pass, in the order run. */
  List<Double> each() {
    return passes.stream().map(Timed::mbps).toList();
  }

  private double median(ToDoubleFunction<Timed> f) {
    if (passes.isEmpty()) {
      return Double.NaN;
    }
    return Throughput.median(passes.stream().mapToDouble(f).toArray());
  }
}
