package io.parityfs.cli;

import io.parityfs.node.protocol.admin.ArrayTask;
import java.util.Locale;

/**
 * The final line of a rebuild that ended, from the node's figures for it: what it rebuilt, of
 * how much, how many objects (and lost ones), in how long. Not the progress of the last poll,
 * which for a rebuild faster than the polling period says nothing ({@code DONE - 0 B / 0 B}).
 *
 * <pre>
 * rebuild slot 2: DONE  5.7 MiB / 5.7 MiB rebuilt, 23/23 objects, in 0.4s (14.3 MiB/s)
 * rebuild slot 2: DONE  5.7 MiB / 5.7 MiB rebuilt, 23/23 objects, 2 lost, in 0.4s (14.3 MiB/s)
 * </pre>
 */
final class RebuildResult {
  private RebuildResult() {}

  /** Whether {@code task} is a rebuild that ended: it gets a result line. */
  static boolean applies(ArrayTask task) {
    return ArrayTask.REBUILD.equals(task.kind()) && task.ended();
  }

  /** Whether the rebuild restored every object it planned: its slot can go ONLINE. */
  static boolean complete(ArrayTask task) {
    return task.state().equals("DONE") && task.objectsLost() == 0;
  }

  static String line(ArrayTask task) {
    return "rebuild slot " + task.slot() + ": " + task.state() + "  "
        + Sizes.human(task.bytesDone()) + " / " + Sizes.human(task.bytesTotal()) + " rebuilt, "
        + task.objectsDone() + "/" + task.objectsTotal() + " objects"
        + (task.objectsLost() > 0 ? ", " + task.objectsLost() + " lost" : "")
        + ", in " + time(task.elapsedSeconds()) + " (" + Sizes.rate(task.bytesPerSecond()) + ")";
  }

  /** Tenths of a second below a minute (a fast rebuild is not "0s"), else as an ETA. */
  static String time(double seconds) {
    return seconds < 59.95 ? String.format(Locale.ROOT, "%.1fs", Math.max(0, seconds))
        : Sizes.duration(seconds);
  }
}
