package io.parityfs.client.workload;

/**
 * Live progress of a workload's phase. A workload calls {@link #update} on the thread that
 * called its {@code run}, about every {@code progressInterval} while a phase runs and once more
 * when it ends ({@link Snapshot#finished()}), so implementations need not be thread-safe.
 */
@FunctionalInterface
public interface Progress {
  /** Reports nothing. */
  Progress NONE = s -> { };

  void update(Snapshot snapshot);

  /**
   * Where a phase stands.
   *
   * @param phase the phase's name ({@code write}, {@code read}, {@code create}, ...)
   * @param bytesDone bytes written or read so far, over all workers
   * @param filesDone files whose operation completed
   * @param elapsedNanos since the phase started
   * @param finished the phase's last report (it ended, or stopped on a failure)
   */
  record Snapshot(String phase, long bytesDone, long bytesTotal, long filesDone, long filesTotal,
      long elapsedNanos, boolean finished) {
    public double seconds() {
      return elapsedNanos / 1e9;
    }

    public double bytesPerSecond() {
      return elapsedNanos <= 0 ? 0 : bytesDone / seconds();
    }

    public double filesPerSecond() {
      return elapsedNanos <= 0 ? 0 : filesDone / seconds();
    }

    /** Seconds left at the current byte rate (files when the phase moves no bytes), or null. */
    public Double etaSeconds() {
      boolean byBytes = bytesTotal > 0;
      double rate = byBytes ? bytesPerSecond() : filesPerSecond();
      long left = byBytes ? bytesTotal - bytesDone : filesTotal - filesDone;
      return rate > 0 ? Math.max(0, left) / rate : null;
    }
  }
}
