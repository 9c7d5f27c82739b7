package io.parityfs.meta.cluster;

import java.util.concurrent.atomic.AtomicLong;

/** What the tasks have done since the manager started; read by {@link ClusterManager#status()}. */
final class ManagerCounters {
  final AtomicLong queueLength = new AtomicLong(-1);
  final AtomicLong filesDrained = new AtomicLong();
  /** Recorded lengths of the files drained. */
  final AtomicLong bytesDrained = new AtomicLong();
  final AtomicLong chunksDeleted = new AtomicLong();
  final AtomicLong recordsWaiting = new AtomicLong();
  final AtomicLong trashPurged = new AtomicLong();
  final AtomicLong orphanScans = new AtomicLong();
  final AtomicLong orphansFound = new AtomicLong();
  final AtomicLong orphansDeleted = new AtomicLong();
  final AtomicLong lastOrphanScanMillis = new AtomicLong();
  final AtomicLong targetsMarkedOffline = new AtomicLong();
  final AtomicLong targetsDeclaredBad = new AtomicLong();
  final AtomicLong leasesRecovered = new AtomicLong();
}
