package io.parityfs.node.chunk;

import io.parityfs.node.protocol.ChunkId;
import io.parityfs.raid.array.object.ObjectWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A write of one chunk in progress ({@link ChunkStore#openWrite}): {@link #write} any number of
 * times, then {@link #commit} (the new content becomes visible atomically and is durable when it
 * returns) or {@link #abort} / {@link #close} (nothing becomes visible).
 *
 * <p>While it is open it holds the chunk's writer lock: another write or a delete of the same
 * chunk waits. Whoever opens one must close it (the network layer: when the request ends or the
 * connection drops). Not thread-safe: one thread feeds a writer. The caller keeps ownership of
 * the buffers it passes; they are copied before {@link #write} returns.
 */
public final class ChunkWriter implements Closeable {
  private final ChunkStore store;
  private final ChunkId id;
  private final ObjectWriter writer;
  /** The writer generation of the chunk's file this write was admitted as. */
  private final long generation;
  private boolean open = true;

  ChunkWriter(ChunkStore store, ChunkId id, ObjectWriter writer, long generation) {
    this.generation = generation;
    this.store = store;
    this.id = id;
    this.writer = writer;
  }

  /** The chunk being written. */
  public ChunkId id() {
    return id;
  }

  /**
   * The chunk's length if committed now (for an overwrite or append: the kept bytes before the
   * write position included).
   */
  public long length() {
    return writer.length();
  }

  /**
   * Appends all of {@code src} (position to limit) at the write position.
   *
   * @throws ChunkStoreException INVALID_ARGUMENT when the chunk would exceed the maximum chunk
   *     size; NO_SPACE, NOT_ENOUGH_DRIVES, DRIVE_IO. On any failure the writer is aborted.
   */
  public void write(ByteBuffer src) throws ChunkStoreException {
    checkOpen();
    try {
      writer.write(src);
    } catch (IOException | IllegalArgumentException e) {
      throw failed(e);
    }
  }

  /**
   * Appends all of {@code srcs} (in order) at the write position, checking them against {@code
   * crc}, their sender's CRC32C, in the pass that takes the cells' checksums ({@link
   * ObjectWriter#write(ByteBuffer[], int)}): bytes a frame brought unchecked.
   *
   * @throws ChunkStoreException CRC_MISMATCH when the bytes do not match {@code crc}; as {@link
   *     #write(ByteBuffer)} otherwise. On any failure the writer is aborted.
   */
  public void write(ByteBuffer[] srcs, int crc) throws ChunkStoreException {
    checkOpen();
    try {
      writer.write(srcs, crc);
    } catch (IOException | IllegalArgumentException e) {
      throw failed(e);
    }
  }

  private ChunkStoreException failed(Exception e) {
    open = false;
    writer.abort();
    return ChunkStore.translate(id, e);
  }

  /**
   * Makes what was written the chunk's new committed version, durable on the drives when this
   * returns, and returns it.
   *
   * @throws ChunkStoreException NO_SPACE, NOT_ENOUGH_DRIVES, DRIVE_IO, OBJECT_LOST (an overwrite
   *     whose kept bytes could not be read): nothing became visible
   */
  public ChunkInfo commit() throws ChunkStoreException {
    checkOpen();
    open = false;
    return store.commit(id, writer, generation);
  }

  /** Abandons the write: nothing becomes visible. Harmless after commit or abort. */
  public void abort() {
    if (open) {
      open = false;
      writer.abort();
    }
  }

  /** {@link #abort} unless committed. */
  @Override
  public void close() {
    abort();
  }

  private void checkOpen() {
    if (!open) {
      throw new IllegalStateException("writer of chunk " + id + " is committed or aborted");
    }
  }
}
