package io.parityfs.node;

import io.parityfs.meta.registry.OnlineRecord;
import io.parityfs.node.chunk.ChunkStore;
import io.parityfs.node.config.TargetConfig;
import io.parityfs.raid.array.RaidArray;
import io.parityfs.raid.array.assembly.ArraySlot;
import io.parityfs.raid.array.assembly.ArrayState;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.repair.ScrubReport;
import io.parityfs.raid.array.repair.ScrubSchedule;
import io.parityfs.raid.codec.select.CodecSelection;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One storage target of a node: a {@link RaidArray}, the {@link ChunkStore} over it, and its
 * scrub schedule. The target id is the array id (a UUID in the drives' labels), so a target keeps
 * its id across restarts, path changes and moves. Thread-safe.
 */
public final class StorageTarget implements TargetView {
  private final TargetConfig config;
  private final RaidArray array;
  private final ChunkStore chunks;
  private final Optional<CodecSelection> codec;
  private volatile ScrubSchedule scrub;
  /** Per data slot, the drive directory it has or last had: see {@link #memberDataDrives}. */
  private final Map<Integer, Path> lastDrives = new ConcurrentHashMap<>();

  StorageTarget(TargetConfig config, RaidArray array, Optional<CodecSelection> codec) {
    this.config = config;
    this.array = array;
    this.chunks = new ChunkStore(array);
    this.codec = codec;
  }

  /** The target id: the array's id, as a string. */
  @Override
  public String id() {
    return array.id().toString();
  }

  /** The target's name in the node configuration. */
  @Override
  public String name() {
    return config.name();
  }

  public TargetConfig config() {
    return config;
  }

  @Override
  public RaidArray array() {
    return array;
  }

  @Override
  public ChunkStore chunks() {
    return chunks;
  }

  /** The codec chosen for the array's geometry; empty for a mirror (no parity). */
  @Override
  public Optional<CodecSelection> codec() {
    return codec;
  }

  /** The array's protection, e.g. {@code raid6:4+2} or {@code mirror:3}. */
  @Override
  public String protection() {
    Protection p = array.labels().config().protection();
    return p instanceof Protection.Parity parity ? parity.geometry().toString()
        : "mirror:" + p.width();
  }

  @Override
  public ArrayState state() {
    return array.state();
  }

  /**
   * Objects a scrub found unrecoverable and no whole scrub has cleared since, less those
   * rewritten or deleted since ({@link io.parityfs.raid.array.repair.Scrubber#damage}):
   * published in the registry, where it makes the target's consistency DAMAGED.
   */
  public long lostObjects() {
    return array.scrubber().damage().map(ScrubReport::unrecoverableObjects).orElse(0L);
  }

  /**
   * The ids of the {@link #lostObjects} a scrub listed (at most {@link
   * io.parityfs.raid.array.repair.Scrubber#MAX_LISTED_IDS}, in the order found; fewer than
   * lostObjects when it found more): object ids, {@code fileId << 24 | chunkIndex}. Published
   * in the registry beside the count.
   */
  public List<Long> lostObjectIds() {
    return array.scrubber().damage().map(ScrubReport::unrecoverableIds).orElse(List.of());
  }

  /**
   * The lost objects as the registry publishes them ({@link
   * OnlineRecord.TargetStatus#lostObjects lostObjects} and {@link
   * OnlineRecord.TargetStatus#lostIds lostIds}), both from one damage report.
   */
  Lost lost() {
    Optional<ScrubReport> d = array.scrubber().damage();
    return new Lost(d.map(ScrubReport::unrecoverableObjects).orElse(0L),
        d.map(r -> r.unrecoverableIds().stream()
            .map(OnlineRecord.TargetStatus::objectIdHex).toList())
            .orElse(List.of()));
  }

  /** See {@link #lost()}: the count and the listed ids, as 16 hexadecimal digits each. */
  record Lost(long lostObjects, List<String> lostIds) {}

  /** The running scrub schedule, if any. */
  public Optional<ScrubSchedule> scrubSchedule() {
    return Optional.ofNullable(scrub);
  }

  void scrubSchedule(ScrubSchedule s) {
    this.scrub = s;
  }

  /**
   * Bytes of chunk data the target can hold, estimated from its drives: declustered placement
   * spreads a chunk's {@code width} shards evenly over the data slots, so each drive holds
   * 1/dataSlots of the physical bytes, which are width/k of the chunk bytes (a mirror: copies).
   * Drives are grouped by the file system they are on ({@link FileStore} identity): a file
   * system holding n of the drives, of size S, bounds the array at S × dataSlots × k / (n ×
   * width), and the smallest bound is the estimate. With one drive per file system this is the
   * smallest drive × dataSlots × k / width; with every drive on one file system (a test or a
   * local cluster) it is that file system × k / width, not dataSlots times it.
   *
   * <p>Every data slot counts, whatever its state: a FAILED or MISSING slot's share is still the
   * array's (a degraded array keeps its geometry, and the replacement takes the share back), so
   * failing a drive must not spread the file system over fewer drives and make the array look
   * larger (issue 39: 168 GiB optimal, 201.6 GiB with one slot failed). A slot without a drive
   * counts on the file system of the drive it last had ({@link #memberDataDrives}).
   */
  @Override
  public long capacityBytes() {
    return estimate(false);
  }

  /** Bytes of chunk data that still fit, estimated like {@link #capacityBytes()}. */
  @Override
  public long freeBytes() {
    return estimate(true);
  }

  /** The file systems of the member data drives: what {@link #capacityBytes()} divides. */
  public List<FileStore> fileStores() {
    return List.copyOf(dataDriveStores().keySet());
  }

  /**
   * The file systems of the member data drives by {@link FileSystemId} (the same for every node of
   * this machine), with how many of them each holds: what a cluster total counts once however
   * many targets share it. Empty when a drive's file system has no id, or cannot be read (a
   * vanished drive): the target then counts in full.
   */
  public Map<String, Integer> fileSystemIds() {
    Map<String, Integer> ids = new LinkedHashMap<>();
    for (Path drive : memberDataDrives()) {
      Optional<String> id = FileSystemId.of(drive);
      if (id.isEmpty()) {
        return Map.of();
      }
      ids.merge(id.get(), 1, Integer::sum);
    }
    return ids;
  }

  /** Each file system holding member data drives, with how many of them. */
  private Map<FileStore, Integer> dataDriveStores() {
    Map<FileStore, Integer> stores = new LinkedHashMap<>();
    for (Path drive : memberDataDrives()) {
      try {
        stores.merge(Files.getFileStore(drive), 1, Integer::sum);
      } catch (IOException e) {
        // a vanished drive: the array fails it on its own; leave it out of the estimate
      }
    }
    return stores;
  }

  /**
   * The directory of each data slot's drive, whatever the slot's state: the drive it has now,
   * else (FAILED or MISSING: the labels keep no drive for it) the one it last had. A slot that
   * had no drive since the node started takes one of the configured drive directories that no
   * slot uses (the failed drive's, typically); failing that it is left out. A directory that
   * has vanished is left out by the callers.
   */
  private List<Path> memberDataDrives() {
    int dataSlots = array.labels().dataSlots();
    Set<Path> unused = new LinkedHashSet<>(config.drives());
    for (ArraySlot s : array.labels().slots()) {
      s.drivePath().ifPresent(d -> {
        unused.remove(d);
        if (s.slot() < dataSlots) {
          lastDrives.put(s.slot(), d);
        }
      });
    }
    unused.removeAll(lastDrives.values());
    Iterator<Path> spare = unused.iterator();
    List<Path> out = new ArrayList<>();
    for (int slot = 0; slot < dataSlots; slot++) {
      Path d = lastDrives.get(slot);
      if (d == null && spare.hasNext()) {
        d = spare.next();
        lastDrives.put(slot, d);
      }
      if (d != null) {
        out.add(d);
      }
    }
    return out;
  }

  private long estimate(boolean free) {
    int dataSlots = array.labels().dataSlots();
    Protection p = array.labels().config().protection();
    int k = p instanceof Protection.Parity parity ? parity.geometry().k() : 1;
    double bound = Double.MAX_VALUE;
    for (var e : dataDriveStores().entrySet()) {
      long size;
      try {
        size = free ? e.getKey().getUsableSpace() : e.getKey().getTotalSpace();
      } catch (IOException x) {
        continue;
      }
      bound = Math.min(bound, (double) size * dataSlots * k / ((double) e.getValue() * p.width()));
    }
    return bound == Double.MAX_VALUE ? 0 : (long) bound;
  }

  /** The drive directories of the array's slots (spares included) that have one. */
  Iterable<Path> drivePaths() {
    return array.labels().slots().stream().flatMap(s -> s.drivePath().stream()).toList();
  }
}
