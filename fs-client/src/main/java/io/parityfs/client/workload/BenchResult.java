package io.parityfs.client.workload;

import java.util.List;

/**
 * A workload's run.
 *
 * @param workload {@code checkpoint} or {@code smallfiles}
 * @param dir the namespace directory it worked in
 * @param phases in the order they ran
 * @param removed whether the directory was deleted at the end (false with {@code keep}, and
 *     when a restore-only run read a directory it had not made)
 */
public record BenchResult(String workload, String dir, List<PhaseResult> phases,
    boolean removed) {
  public BenchResult {
    phases = List.copyOf(phases);
  }

  /** The phase named {@code name}; IllegalArgumentException when none ran. */
  public PhaseResult phase(String name) {
    return phases.stream().filter(p -> p.phase().equals(name)).findFirst().orElseThrow(
        () -> new IllegalArgumentException("no phase " + name + " in " + workload));
  }
}
