package io.parityfs.raid.array;

import io.parityfs.raid.array.ObjectLayout.CellSpan;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;

/**
 * One byte-range read of one object version: opens the shards it needs, lazily, reads the cells
 * holding the range, and for a cell it cannot read (CRC mismatch, failed drive, missing or corrupt
 * shard file) restores the stripe from k survivors (or takes another mirror copy), rewrites the
 * corrupt cells it met on live drives, and counts both on the {@link ObjectStore}. A shard found
 * unavailable is not tried again within the read. Single use, one thread.
 */
final class RangeRead {
  private static final System.Logger LOG = System.getLogger(RangeRead.class.getName());

  private enum Status {
    GOOD,
    CORRUPT,
    UNAVAILABLE
  }

  private final ObjectStore store;
  private final ObjectManifest manifest;
  private final ObjectLayout layout;
  private final int width;
  private final int k;
  private final boolean mirror;
  private final int cellSize;
  private final ShardReader[] readers;
  private final boolean[] opened;
  /** Why shard i cannot be read (null: it can, as far as known). */
  private final String[] unavailable;
  private final ByteBuffer[] cells;

  RangeRead(ObjectStore store, ObjectManifest manifest) {
    this.store = store;
    this.manifest = manifest;
    this.layout = manifest.layout();
    this.width = layout.shards();
    this.k = layout.dataShards();
    this.mirror = layout.protection() instanceof Protection.Mirror;
    this.cellSize = layout.cellSize();
    this.readers = new ShardReader[width];
    this.opened = new boolean[width];
    this.unavailable = new String[width];
    this.cells = new ByteBuffer[width];
  }

  /** See {@link ObjectStore#read}. */
  int read(long offset, ByteBuffer into) throws IOException {
    long length = manifest.objectLength();
    if (offset < 0 || offset > length) {
      throw new IllegalArgumentException(String.format(
          "offset (%d) must be in 0..%d for object %016x version %d", offset, length,
          manifest.objectId(), manifest.version()));
    }
    int n = (int) Math.min(into.remaining(), length - offset);
    try {
      for (CellSpan span : layout.spans(offset, n)) {
        ByteBuffer cell = mirror ? copy(span.stripe()) : cell(span.stripe(), span.shard());
        int from = span.offsetInCell();
        into.put(cell.duplicate().limit(from + span.length()).position(from));
      }
    } finally {
      for (ShardReader r : readers) {
        if (r != null) {
          try {
            r.close();
          } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing {0}: {1}", r.name(), e);
          }
        }
      }
    }
    return n;
  }

  /** Data cell {@code shard} of {@code stripe}, read or reconstructed; a buffer of one cell. */
  private ByteBuffer cell(int stripe, int shard) throws IOException {
    Status s = tryRead(shard, stripe);
    if (s == Status.GOOD) {
      return cells[shard];
    }
    boolean[] corrupt = new boolean[width];
    corrupt[shard] = s == Status.CORRUPT;
    ByteBuffer[] shards = new ByteBuffer[width];
    int good = 0;
    for (int i = 0; i < width && good < k; i++) {
      if (i == shard) {
        continue;
      }
      Status t = tryRead(i, stripe);
      if (t == Status.GOOD) {
        shards[i] = cells[i];
        good++;
      } else if (t == Status.CORRUPT) {
        corrupt[i] = true;
      }
    }
    if (good < k) {
      throw lost(stripe);
    }
    List<Integer> targets = new ArrayList<>();
    for (int i = 0; i < width; i++) {
      if (i == shard || corrupt[i]) {
        targets.add(i);
        shards[i] = buffer(i);
      }
    }
    store.codec().reconstruct(shards, targets.stream().mapToInt(Integer::intValue).toArray());
    store.countDegraded();
    for (int t : targets) {
      if (corrupt[t]) {
        repair(t, stripe, cells[t]);
      }
    }
    return cells[shard];
  }

  /** Cell {@code stripe} from the first mirror copy that reads back good. */
  private ByteBuffer copy(int stripe) throws IOException {
    List<Integer> corrupt = new ArrayList<>();
    for (int i = 0; i < width; i++) {
      Status s = tryRead(i, stripe);
      if (s == Status.GOOD) {
        if (i > 0) {
          store.countDegraded();
        }
        for (int c : corrupt) {
          repair(c, stripe, cells[i]);
        }
        return cells[i];
      }
      if (s == Status.CORRUPT) {
        corrupt.add(i);
      }
    }
    throw lost(stripe);
  }

  /** Rewrites cell {@code stripe} of shard {@code shard} with {@code data}; counts it. */
  private void repair(int shard, int stripe, ByteBuffer data) {
    ShardReader r = readers[shard];
    if (r == null || unavailable[shard] != null) {
      return;
    }
    int slot = manifest.slotOf(shard);
    try {
      r.rewriteCell(stripe, data.duplicate().position(0).limit(cellSize));
      store.countRepair();
      LOG.log(System.Logger.Level.INFO, "object {0} version {1}: repaired cell {2} of shard {3}"
          + " on slot {4}", hex(), manifest.version(), stripe, shard, slot);
    } catch (IOException e) {
      store.noteFailure(slot, e);
      LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: repairing cell {2} of shard"
          + " {3} on slot {4} failed: {5}", hex(), manifest.version(), stripe, shard, slot,
          e.getMessage());
    }
  }

  /**
   * Reads cell {@code stripe} of shard {@code i} into {@code cells[i]} (position 0, limit one
   * cell). CORRUPT: the bytes failed their CRC and the shard is otherwise readable.
   */
  private Status tryRead(int i, int stripe) {
    ShardReader r = reader(i);
    if (r == null) {
      return Status.UNAVAILABLE;
    }
    ByteBuffer buf = buffer(i);
    try {
      r.readCell(stripe, buf);
      buf.flip();
      return Status.GOOD;
    } catch (ArrayException e) {
      if (e.error() == ArrayError.CORRUPT_CELL) {
        LOG.log(System.Logger.Level.WARNING, "{0}", e.getMessage());
        return Status.CORRUPT;
      }
      markUnavailable(i, e);
      return Status.UNAVAILABLE;
    } catch (IOException e) {
      markUnavailable(i, e);
      return Status.UNAVAILABLE;
    }
  }

  private ShardReader reader(int i) {
    if (unavailable[i] != null) {
      return null;
    }
    if (opened[i]) {
      return readers[i];
    }
    opened[i] = true;
    int slot = manifest.slotOf(i);
    Drive drive = store.drive(slot);
    if (drive == null) {
      unavailable[i] = "slot " + slot + " is failed or missing";
      return null;
    }
    String name = ObjectFiles.shard(manifest.objectId(), manifest.version(), i);
    try {
      ShardReader r = ShardReader.open(drive, name);
      ShardHeader h = r.header();
      if (h.shardIndex() != i || h.objectLength() != manifest.objectLength()
          || h.cellSize() != cellSize || !h.protection().equals(manifest.protection())) {
        r.close();
        unavailable[i] = "shard " + drive.root().resolve(name) + " disagrees with the manifest: "
            + h;
        return null;
      }
      readers[i] = r;
      return r;
    } catch (NoSuchFileException e) {
      unavailable[i] = "shard " + drive.root().resolve(name) + " is missing";
    } catch (IOException e) {
      markUnavailable(i, e);
    }
    return null;
  }

  private void markUnavailable(int i, IOException e) {
    int slot = manifest.slotOf(i);
    store.noteFailure(slot, e);
    unavailable[i] = e.getMessage();
    LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: shard {2} on slot {3}"
        + " unavailable: {4}", hex(), manifest.version(), i, slot, e.getMessage());
    if (readers[i] != null) {
      try {
        readers[i].close();
      } catch (IOException ignored) {
        // the drive is going away; nothing to do
      }
      readers[i] = null;
    }
  }

  private ByteBuffer buffer(int i) {
    if (cells[i] == null) {
      Drive d = store.drive(manifest.slotOf(i));
      cells[i] = d != null ? d.allocateAligned(cellSize) : ByteBuffer.allocateDirect(cellSize);
    }
    return cells[i].clear();
  }

  private ArrayException lost(int stripe) {
    StringBuilder why = new StringBuilder();
    int bad = 0;
    for (int i = 0; i < width; i++) {
      if (unavailable[i] != null || (opened[i] && readers[i] == null)) {
        bad++;
        why.append("; shard ").append(i).append(" (slot ").append(manifest.slotOf(i)).append("): ")
            .append(unavailable[i]);
      }
    }
    return new ArrayException(ArrayError.OBJECT_LOST, null, String.format(
        "object %s version %d stripe %d cannot be read: fewer than %d of its %d shards are"
            + " readable (%s tolerates %d lost)%s", hex(), manifest.version(), stripe,
        mirror ? 1 : k, width, manifest.protection(), manifest.protection().tolerates(), why));
  }

  private String hex() {
    return String.format("%016x", manifest.objectId());
  }
}
