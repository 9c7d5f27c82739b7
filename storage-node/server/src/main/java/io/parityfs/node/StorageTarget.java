package io.parityfs.node;

import io.parityfs.node.chunk.ChunkStore;
import io.parityfs.node.config.TargetConfig;
import io.parityfs.raid.array.ArrayState;
import io.parityfs.raid.array.ArraySlot;
import io.parityfs.raid.array.DriveState;
import io.parityfs.raid.array.Protection;
import io.parityfs.raid.array.RaidArray;
import io.parityfs.raid.array.ScrubSchedule;
import io.parityfs.raid.codec.CodecSelection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One storage target of a node: a {@link RaidArray}, the {@link ChunkStore} over it, and its
 * scrub schedule. The target id is the array id (a UUID in the drives' labels), so a target keeps
 * its id across restarts, path changes and moves. Thread-safe.
 */
public final class StorageTarget {
  private final TargetConfig config;
  private final RaidArray array;
  private final ChunkStore chunks;
  private final Optional<CodecSelection> codec;
  private volatile ScrubSchedule scrub;

  StorageTarget(TargetConfig config, RaidArray array, Optional<CodecSelection> codec) {
    this.config = config;
    this.array = array;
    this.chunks = new ChunkStore(array);
    this.codec = codec;
  }

  /** The target id: the array's id, as a string. */
  public String id() {
    return array.id().toString();
  }

  /** The target's name in the node configuration. */
  public String name() {
    return config.name();
  }

  public TargetConfig config() {
    return config;
  }

  public RaidArray array() {
    return array;
  }

  public ChunkStore chunks() {
    return chunks;
  }

  /** The codec chosen for the array's geometry; empty for a mirror (no parity). */
  public Optional<CodecSelection> codec() {
    return codec;
  }

  /** The array's protection, e.g. {@code raid6:4+2} or {@code mirror:3}. */
  public String protection() {
    Protection p = array.labels().config().protection();
    return p instanceof Protection.Parity parity ? parity.geometry().toString()
        : "mirror:" + p.width();
  }

  public ArrayState state() {
    return array.state();
  }

  /** The running scrub schedule, if any. */
  public Optional<ScrubSchedule> scrubSchedule() {
    return Optional.ofNullable(scrub);
  }

  void scrubSchedule(ScrubSchedule s) {
    this.scrub = s;
  }

  /**
   * Bytes of chunk data the target can hold, estimated from its drives: data slots x the smallest
   * live data drive x k / (k + m) (a mirror: / copies). Declustered placement spreads objects
   * evenly, so the smallest drive bounds the array. Drives sharing one file system (tests) are
   * each counted whole.
   */
  public long capacityBytes() {
    return estimate(false);
  }

  /** Bytes of chunk data that still fit, estimated like {@link #capacityBytes()}. */
  public long freeBytes() {
    return estimate(true);
  }

  private long estimate(boolean free) {
    int dataSlots = array.labels().dataSlots();
    DriveState[] states = array.driveStates();
    long smallest = Long.MAX_VALUE;
    for (ArraySlot s : array.labels().slots()) {
      if (s.slot() >= dataSlots || s.drivePath().isEmpty()
          || (states[s.slot()] != DriveState.ONLINE && states[s.slot()] != DriveState.REBUILDING)) {
        continue;
      }
      try {
        var store = Files.getFileStore(s.drivePath().get());
        smallest = Math.min(smallest, free ? store.getUsableSpace() : store.getTotalSpace());
      } catch (IOException e) {
        // a vanished drive: the array fails it on its own; leave it out of the estimate
      }
    }
    if (smallest == Long.MAX_VALUE) {
      return 0;
    }
    Protection p = array.labels().config().protection();
    int k = p instanceof Protection.Parity parity ? parity.geometry().k() : 1;
    return (long) ((double) smallest * dataSlots * k / p.width());
  }

  /** The drive directories of the array's slots (spares included) that have one. */
  Iterable<Path> drivePaths() {
    return array.labels().slots().stream().flatMap(s -> s.drivePath().stream()).toList();
  }
}
