package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveFile;
import io.parityfs.raid.array.format.CellChecksums;
import io.parityfs.raid.array.format.ShardFormat;
import io.parityfs.raid.array.format.ShardHeader;
import io.parityfs.raid.array.format.ShardHeaderEncoder;
import io.parityfs.raid.array.format.VersionTag;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Writes one shard file ({@link ShardFormat}) on one drive, streaming: cells as they arrive, then
 * the CRC table, then the header, then fsync, all under a temporary name.
 *
 * <p><b>Protocol.</b> The shard becomes visible under its final name only through {@link
 * #publish}, which the object store calls after {@link #finish} succeeded on every shard:
 *
 * <ol>
 *   <li>{@code new ShardWriter(drive, name, template)} creates {@code name + }{@value
 *       #TEMP_SUFFIX};
 *   <li>{@link #writeCell} for cells 0, 1, … at {@code 4096 + i * cellSize};
 *   <li>{@link #finish} writes the table and the header, fsyncs and closes the file, and returns
 *       the temp name;
 *   <li>{@link #publish} renames it to the final name and fsyncs the directory;
 *   <li>the object store writes its manifest, which is what makes the version visible.
 * </ol>
 *
 * A crash before step 4 completes leaves at most a {@code .tmp} file; a crash after it leaves a
 * complete, synced shard under the final name (the file was synced before the rename), which is
 * an orphan until the manifest names it. Recovery deletes every {@code .tmp} file and the shards
 * no manifest names. On failure, {@link #abort} deletes the temp file.
 *
 * <p><b>The header template.</b> The object's length is known only at the end of a streaming
 * write, so the writer takes a header for the right object, version, shard, protection, cell size
 * and creation time, and ignores its lengths (build it with length 0); {@link #finish} builds the
 * real header from the lengths it is given, and the version's tag from the template or, for a
 * writer that learns it only at the commit, from {@link #finish(long, long, VersionTag)}.
 *
 * <p><b>Buffers.</b> A cell buffer is read from its position to its limit, not moved, not kept.
 * Full cells are written from the caller's buffer, so an aligned direct buffer ({@link
 * Drive#allocateAligned}) goes to the device with O_DIRECT and no copy; only a short last cell is
 * copied, into one padding buffer allocated once.
 *
 * <p>Not thread-safe: one thread writes a shard (shards of one object are written in parallel by
 * one writer each).
 */
public final class ShardWriter {
  /** Suffix of a shard file being written; such a file is never read, only deleted. */
  static final String TEMP_SUFFIX = ".tmp";

  private enum State {
    WRITING,
    FINISHED,
    FAILED,
    ABORTED
  }

  private final Drive drive;
  private final String tempName;
  private final ShardHeader template;
  private final DriveFile file;
  private ByteBuffer padding;
  private int[] crcs = new int[16];
  private int cells;
  private long bytesGiven;
  private boolean shortCellSeen;
  private State state = State.WRITING;

  /**
   * Creates the temp file {@code finalName + ".tmp"} on {@code drive} for the shard described by
   * {@code template} (its lengths are ignored).
   */
  public ShardWriter(Drive drive, String finalName, ShardHeader template) throws IOException {
    if (finalName.endsWith(TEMP_SUFFIX)) {
      throw new IllegalArgumentException(
          "shard name (" + finalName + ") must not end with " + TEMP_SUFFIX);
    }
    this.drive = drive;
    this.tempName = finalName + TEMP_SUFFIX;
    this.template = template;
    this.file = drive.create(tempName);
  }

  /** The temp file's name. */
  public String tempName() {
    return tempName;
  }

  /** Cells written so far. */
  int cells() {
    return cells;
  }

  /**
   * Writes the next cell: {@code cellSize} bytes, or fewer for the last cell, which is padded
   * with zeros.
   *
   * @throws IllegalArgumentException when the cell is longer than cellSize
   * @throws IllegalStateException after a short cell, or once finished, failed or aborted
   * @throws ArrayException DRIVE_IO when the write fails; the writer is then failed: abort it
   */
  void writeCell(ByteBuffer cell) throws IOException {
    checkState(State.WRITING, "write a cell");
    int cellSize = template.cellSize();
    int n = cell.remaining();
    if (n > cellSize) {
      throw new IllegalArgumentException(
          "cell " + cells + " has " + n + " bytes; cells have at most " + cellSize);
    }
    if (shortCellSeen) {
      throw new IllegalStateException(
          "cell " + cells + " follows a short cell; only the last cell may be short");
    }
    if (cells == Integer.MAX_VALUE) {
      throw new IllegalStateException("a shard holds at most " + Integer.MAX_VALUE + " cells");
    }
    ByteBuffer out;
    if (n == cellSize) {
      out = cell.duplicate();
    } else {
      shortCellSeen = true;
      if (padding == null) {
        padding = drive.allocateAligned(cellSize);
      }
      padding.clear();
      padding.put(cell.duplicate());
      while (padding.hasRemaining()) {
        padding.put((byte) 0);
      }
      out = padding.flip();
    }
    int crc = CellChecksums.crc32c(out);
    state = State.FAILED; // until the write returns
    file.write(out, ShardFormat.cellOffset(cellSize, cells));
    state = State.WRITING;
    if (cells == crcs.length) {
      crcs = Arrays.copyOf(crcs, Math.max(16, (int) Math.min(Integer.MAX_VALUE, 2L * cells)));
    }
    crcs[cells++] = crc;
    bytesGiven += n;
  }

  /**
   * Writes the next cells, all full: {@code cells} holds a whole number of cells (from its
   * position to its limit, not moved), written in one request, which goes to the device with
   * O_DIRECT and no copy when the buffer is aligned ({@link Drive#allocateAligned}). Their
   * checksums are computed here.
   *
   * @throws IllegalArgumentException when the bytes are not a whole, non-zero number of cells
   * @throws IllegalStateException after a short cell, or once finished, failed or aborted
   * @throws ArrayException DRIVE_IO when the write fails; the writer is then failed: abort it
   */
  public void writeCells(ByteBuffer cells) throws IOException {
    writeCells(cells, null);
  }

  /**
   * {@link #writeCells(ByteBuffer)} with the cells' checksums already known: entry i of {@code
   * known} is stored as cell i's CRC32C as it is, not computed again from the bytes here (taken
   * where the bytes arrived, it then also covers what happened to them in memory since). Null:
   * computed here.
   */
  void writeCells(ByteBuffer cells, int[] known) throws IOException {
    checkState(State.WRITING, "write cells");
    int cellSize = template.cellSize();
    int n = cells.remaining() / cellSize;
    if (n == 0 || cells.remaining() % cellSize != 0) {
      throw new IllegalArgumentException(cells.remaining() + " bytes are not a whole number of "
          + cellSize + "-byte cells");
    }
    if (shortCellSeen) {
      throw new IllegalStateException(
          "cell " + this.cells + " follows a short cell; only the last cell may be short");
    }
    if (this.cells > Integer.MAX_VALUE - n) {
      throw new IllegalStateException("a shard holds at most " + Integer.MAX_VALUE + " cells");
    }
    if (this.cells + n > crcs.length) {
      crcs = Arrays.copyOf(crcs, (int) Math.min(Integer.MAX_VALUE,
          Math.max(2L * crcs.length, (long) this.cells + n)));
    }
    int p = cells.position();
    for (int i = 0; i < n; i++) {
      crcs[this.cells + i] = known != null ? known[i]
          : CellChecksums.crc32c(cells.duplicate().position(p + i * cellSize).limit(p + (i + 1)
              * cellSize));
    }
    state = State.FAILED; // until the write returns
    file.write(cells.duplicate(), ShardFormat.cellOffset(cellSize, this.cells));
    state = State.WRITING;
    this.cells += n;
    bytesGiven += (long) n * cellSize;
  }

  /**
   * Writes the CRC table and the header for an object of {@code objectLength} bytes of which this
   * shard holds {@code dataLength}, fsyncs and closes the file; returns the temp name, for
   * {@link #publish}. The header has the template's tag.
   *
   * @throws IllegalArgumentException when the lengths disagree with the layout or with the cells
   *     written (the writer stays open: abort it)
   * @throws ArrayException DRIVE_IO when a write or the fsync fails; the writer is then failed
   */
  public String finish(long objectLength, long dataLength) throws IOException {
    return finish(objectLength, dataLength, template.tag());
  }

  /**
   * {@link #finish(long, long)}, with the version's tag {@code tag} in the header instead of the
   * template's.
   */
  public String finish(long objectLength, long dataLength, VersionTag tag) throws IOException {
    checkState(State.WRITING, "finish");
    ShardHeader header =
        new ShardHeader(template.objectId(), template.objectVersion(), template.shardIndex(),
            template.protection(), template.cellSize(), cells, objectLength, dataLength,
            template.created(), tag);
    if (dataLength > bytesGiven) {
      throw new IllegalArgumentException("data length (" + dataLength + ") of shard "
          + template.shardIndex() + " exceeds the " + bytesGiven + " bytes written");
    }
    state = State.FAILED; // until the file is synced and closed
    int blocks = ShardFormat.tableBlocks(cells);
    if (blocks > 0) {
      ByteBuffer table = drive.allocateAligned(blocks * ShardFormat.BLOCK);
      for (int i = 0; i < cells; i++) {
        table.putInt(crcs[i]);
      }
      table.clear(); // the rest is already zero
      file.write(table, ShardFormat.tableOffset(header.cellSize(), cells));
    }
    ByteBuffer block = drive.allocateAligned(ShardFormat.HEADER_LENGTH);
    block.put(ShardHeaderEncoder.encode(header)).flip();
    file.write(block, 0);
    file.sync();
    file.close();
    state = State.FINISHED;
    return tempName;
  }

  /**
   * Deletes the temp file (closing it first if still open), whatever state the writer is in.
   * Not durable by itself: a temp file a crash brings back is deleted by recovery.
   */
  public void abort() throws IOException {
    if (state == State.ABORTED) {
      return;
    }
    state = State.ABORTED;
    try {
      file.close();
    } finally {
      drive.delete(tempName);
    }
  }

  /**
   * Makes a finished shard visible under {@code finalName}: renames {@code tempName} over it and
   * fsyncs the drive directory. After it returns the shard survives a crash; a crash before it
   * returns leaves either the temp file or the complete shard.
   */
  public static void publish(Drive drive, String tempName, String finalName) throws IOException {
    drive.rename(tempName, finalName);
    drive.syncDirectory();
  }

  private void checkState(State wanted, String what) {
    if (state != wanted) {
      throw new IllegalStateException(
          "cannot " + what + " on shard " + tempName + ": the writer is " + state);
    }
  }
}
