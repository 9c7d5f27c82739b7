package io.parityfs.meta.registry;

import java.util.List;
import java.util.Objects;

/**
 * The ephemeral record of a running node, {@code /parityfs/online/<nodeId>}: it exists while the
 * node's ZooKeeper session does, and is rewritten every refresh interval and on every array or
 * drive state change.
 *
 * @param schema {@link RegistryCodec#SCHEMA}
 * @param nodeId the node id
 * @param name display name
 * @param host the address clients connect to
 * @param port the wire protocol port
 * @param metricsPort the metrics/health HTTP port, -1 when off
 * @param startedMillis when the node started
 * @param updatedMillis when this was written (the node's clock)
 * @param capacityBytes sum of the targets' capacity
 * @param freeBytes sum of the targets' free space
 * @param targets each target's state
 */
public record OnlineRecord(int schema, String nodeId, String name, String host, int port,
    int metricsPort, long startedMillis, long updatedMillis, long capacityBytes, long freeBytes,
    List<TargetStatus> targets) {
  public OnlineRecord {
    targets = targets == null ? List.of() : List.copyOf(targets);
  }

  /**
   * One target of a running node.
   *
   * @param targetId the array id
   * @param name its configured name
   * @param state OPTIMAL, DEGRADED, REBUILDING or FAILED
   * @param protection e.g. raid6:4+2
   * @param capacityBytes chunk bytes it can hold (estimate)
   * @param freeBytes chunk bytes that still fit (estimate)
   * @param codec the parity backend in use, {@code cpu} or {@code gpu} ({@code none}: mirror)
   * @param codecImplementation the codec's implementation name
   * @param drives each slot's state
   * @param rebuilds the rebuilds running or just ended
   * @param fileSystems the file systems its capacity and free space are counted from, each
   *     once: a cluster total counts a file system that several targets share once. Empty in
   *     records of older nodes, and where a drive's file system has no id: such a target counts
   *     in full
   * @param lostObjects objects on it that a scrub found unrecoverable (a stripe with more bad
   *     cells than the protection tolerates) and no whole scrub has cleared since, less those
   *     rewritten or deleted since; 0 in records of older nodes. Makes the target's consistency
   *     DAMAGED
   * @param lostIds the ids of those objects as far as the scrub listed them (at most its first
   *     100; fewer than lostObjects when it found more), each as 16 lowercase hexadecimal digits
   *     ({@link #objectIdHex}); an object id is {@code fileId << 24 | chunkIndex}. Empty in records
   *     of older nodes
   */
  public record TargetStatus(String targetId, String name, String state, String protection,
      long capacityBytes, long freeBytes, String codec, String codecImplementation,
      List<DriveStatus> drives, List<RebuildStatus> rebuilds, List<FileSystemShare> fileSystems,
      long lostObjects, List<String> lostIds) {
    public TargetStatus {
      drives = drives == null ? List.of() : List.copyOf(drives);
      rebuilds = rebuilds == null ? List.of() : List.copyOf(rebuilds);
      fileSystems = fileSystems == null ? List.of() : List.copyOf(fileSystems);
      lostIds = lostIds == null ? List.of()
          : lostIds.stream().filter(Objects::nonNull).toList();
    }

    /** A status that lists no lost object ids (as nodes before the field wrote it). */
    public TargetStatus(String targetId, String name, String state, String protection,
        long capacityBytes, long freeBytes, String codec, String codecImplementation,
        List<DriveStatus> drives, List<RebuildStatus> rebuilds,
        List<FileSystemShare> fileSystems, long lostObjects) {
      this(targetId, name, state, protection, capacityBytes, freeBytes, codec,
          codecImplementation, drives, rebuilds, fileSystems, lostObjects, List.of());
    }

    /** An object id as {@link #lostIds} writes it: 16 lowercase hexadecimal digits. */
    public static String objectIdHex(long objectId) {
      return String.format("%016x", objectId);
    }

    /** A status without lost objects. */
    public TargetStatus(String targetId, String name, String state, String protection,
        long capacityBytes, long freeBytes, String codec, String codecImplementation,
        List<DriveStatus> drives, List<RebuildStatus> rebuilds,
        List<FileSystemShare> fileSystems) {
      this(targetId, name, state, protection, capacityBytes, freeBytes, codec,
          codecImplementation, drives, rebuilds, fileSystems, 0);
    }

    /** A status that names no file systems (as older nodes wrote it). */
    public TargetStatus(String targetId, String name, String state, String protection,
        long capacityBytes, long freeBytes, String codec, String codecImplementation,
        List<DriveStatus> drives, List<RebuildStatus> rebuilds) {
      this(targetId, name, state, protection, capacityBytes, freeBytes, codec,
          codecImplementation, drives, rebuilds, List.of());
    }
  }

  /**
   * A file system holding some of a target's data drives (failed ones included).
   *
   * @param id the file system's identity on its machine, the same for every node there: {@code
   *     <machine>:<device>} (the kernel's boot id, else the host name, and the device number in
   *     hex), opaque to readers, which only compare it
   * @param drives how many of the target's data drives (failed ones included) are on it
   */
  public record FileSystemShare(String id, int drives) {}

  /**
   * @param slot the array slot
   * @param state ONLINE, FAILED, MISSING, REBUILDING or SPARE
   * @param path the drive directory, "" when the slot has none
   */
  public record DriveStatus(int slot, String state, String path) {}

  /**
   * @param slot the slot being rebuilt
   * @param state NEW, PLANNING, RUNNING, DONE, STOPPED or FAILED
   * @param bytesDone cell bytes written
   * @param bytesTotal cell bytes to write
   * @param bytesPerSecond average rate so far
   */
  public record RebuildStatus(int slot, String state, long bytesDone, long bytesTotal,
      double bytesPerSecond) {}
}
