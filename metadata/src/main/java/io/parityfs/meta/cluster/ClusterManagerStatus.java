package io.parityfs.meta.cluster;

/**
 * What a {@link ClusterManager} has done since it started (counts of this process only; a new
 * leader starts from zero).
 *
 * @param leader whether this candidate is the one acting now
 * @param queueLength deferred-delete records at the last round (-1: none run yet)
 * @param recordsWaiting records kept for a retry because a target could not be reached
 * @param filesDrained records removed after all their chunks were deleted
 * @param bytesDrained the recorded lengths of those files
 * @param chunksDeleted chunks of removed files deleted from the queue
 * @param trashPurged detached directories whose interrupted purge was finished
 * @param orphanScans orphan collections completed
 * @param orphansFound chunks found belonging to no file in two rounds a grace period apart
 * @param orphansDeleted of those, deleted
 * @param lastOrphanScanMillis when the last orphan collection completed (0: never)
 * @param targetsMarkedOffline targets this manager marked offline
 * @param leasesRecovered files closed because their writer's session ended
 * @param targetsDeclaredBad targets this manager declared bad (OFFLINE past {@code deadAfter})
 */
public record ClusterManagerStatus(boolean leader, long queueLength, long recordsWaiting,
    long filesDrained, long bytesDrained, long chunksDeleted, long trashPurged, long orphanScans, long orphansFound,
    long orphansDeleted, long lastOrphanScanMillis, long targetsMarkedOffline,
    long leasesRecovered, long targetsDeclaredBad) {}
