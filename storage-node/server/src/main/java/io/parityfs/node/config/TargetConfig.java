package io.parityfs.node.config;

import io.parityfs.meta.Layout;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.codec.select.CodecBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One storage target: a RAID array over local drives ({@code target.<name>.*} keys).
 *
 * @param name the target's name in the configuration (for people; the target id is the array id)
 * @param drives candidate drive directories (any order: an array is assembled from its labels)
 * @param create the array to create on first start, when no drive carries a label yet; empty:
 *     never create (the drives must hold an array)
 * @param codec parity backend
 * @param scrubInterval time between scrub passes; {@link Duration#ZERO}: no schedule
 * @param rebuildIdleBytesPerSecond background (rebuild, scrub) rate while no foreground request
 *     was seen recently; 0: unlimited
 * @param rebuildBusyBytesPerSecond background rate while foreground requests arrive; 0: unlimited
 * @param pool the pool the metadata layer's placement draws this target from, written into its
 *     target record: 1..64 of {@code A-Z a-z 0-9 _ . -}; {@link Layout#DEFAULT_POOL} unless set
 * @param gcInterval time between garbage collection passes while the node runs (one also runs
 *     at open); {@link Duration#ZERO}: only at open
 */
public record TargetConfig(String name, List<Path> drives, Optional<ArrayConfig> create,
    CodecBackend codec, Duration scrubInterval, long rebuildIdleBytesPerSecond,
    long rebuildBusyBytesPerSecond, String pool, Duration gcInterval) {
  /** The default {@link #gcInterval}. */
  public static final Duration DEFAULT_GC_INTERVAL = Duration.ofHours(1);

  public TargetConfig {
    drives = List.copyOf(drives);
    if (gcInterval == null || gcInterval.isNegative()) {
      throw new IllegalArgumentException("gcInterval (" + gcInterval + ") must be 0 or more");
    }
    if (!Layout.isValidPool(pool)) {
      throw new IllegalArgumentException("pool (" + pool + ") must be 1-64 letters, digits,"
          + " '_', '.' or '-'");
    }
  }

  /** A target in the {@link Layout#DEFAULT_POOL}. */
  public TargetConfig(String name, List<Path> drives, Optional<ArrayConfig> create,
      CodecBackend codec, Duration scrubInterval, long rebuildIdleBytesPerSecond,
      long rebuildBusyBytesPerSecond) {
    this(name, drives, create, codec, scrubInterval, rebuildIdleBytesPerSecond,
        rebuildBusyBytesPerSecond, Layout.DEFAULT_POOL);
  }

  /** A target with the default {@link #gcInterval}. */
  public TargetConfig(String name, List<Path> drives, Optional<ArrayConfig> create,
      CodecBackend codec, Duration scrubInterval, long rebuildIdleBytesPerSecond,
      long rebuildBusyBytesPerSecond, String pool) {
    this(name, drives, create, codec, scrubInterval, rebuildIdleBytesPerSecond,
        rebuildBusyBytesPerSecond, pool, DEFAULT_GC_INTERVAL);
  }
}
