package io.parityfs.client;

import io.parityfs.meta.Layout;
import io.parityfs.meta.cluster.ChunkPage;
import io.parityfs.meta.cluster.ChunkService;
import io.parityfs.meta.cluster.StoredChunk;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ListEntry;
import io.parityfs.node.protocol.ListResponse;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.WriteMode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One chunk's transfers. Chunk {@code i} of file {@code id} lives on {@code
 * layout.targets[i % stripeCount]} as chunk {@code (id, i)}. Every write replaces the whole
 * chunk (REPLACE: one new version, atomic on the node, and safe to retry), so a stream never
 * leaves a torn chunk behind; every transfer's frames carry CRC32C, checked at both ends, and
 * the node's array checks its own per-cell CRC32C on every read.
 */
final class ChunkIo implements ChunkService {
  private final NodeClient nodes;
  private final TargetLocator locator;

  ChunkIo(NodeClient nodes, TargetLocator locator) {
    this.nodes = nodes;
    this.locator = locator;
  }

  /** The chunk size of {@code layout} as a client buffer's size; IOException when too large. */
  static int bufferSize(Layout layout, String path) throws IOException {
    if (layout.chunkSize() > Integer.MAX_VALUE - 8) {
      throw new IOException("chunk size " + layout.chunkSize() + " of " + path
          + " is too large for a client buffer");
    }
    return (int) layout.chunkSize();
  }

  static String targetOf(Layout layout, long index) {
    if (layout.targets().size() < layout.stripeCount()) {
      throw new IllegalStateException("layout has " + layout.targets().size()
          + " targets for a stripe count of " + layout.stripeCount() + ": not placed");
    }
    return layout.targets().get((int) (index % layout.stripeCount()));
  }

  /**
   * Stores {@code data} (its remaining bytes, not consumed) as the whole chunk, as writer
   * {@code generation} of the file.
   *
   * @throws FencedException when the target has seen a newer generation of the file: this
   *     writer's lease was recovered or the file reopened; nothing was stored
   */
  void write(long fileId, long generation, Layout layout, int index, ByteBuffer data)
      throws IOException {
    TargetLocator.Location at = locator.locate(targetOf(layout, index));
    try {
      nodes.writeChunk(at.node(), at.wireId(), new ChunkId(fileId, index), 0, WriteMode.REPLACE,
          0, generation, data);
    } catch (NodeException e) {
      if (e.status() == Status.STALE_GENERATION) {
        throw new FencedException("writing chunk " + index + " of file " + fileId + " to target "
            + at.targetId() + ": this writer (generation " + generation + ") was fenced: its"
            + " lease was recovered or the file was reopened by another writer; nothing after"
            + " its last hflush is the file's (" + e.getMessage() + ")", e);
      }
      throw new IOException("writing chunk " + index + " of file " + fileId + " to target "
          + at.targetId() + " on " + at.node() + ": " + e.getMessage(), e);
    }
  }

  /** Deletes chunk {@code index} of the file as writer {@code generation} (fenced as a write). */
  void delete(long fileId, long generation, Layout layout, int index) throws IOException {
    String target = targetOf(layout, index);
    try {
      delete(target, fileId, index, generation);
    } catch (NodeException e) {
      if (e.status() == Status.STALE_GENERATION) {
        throw new FencedException("deleting chunk " + index + " of file " + fileId + " on target "
            + target + ": this writer (generation " + generation + ") was fenced ("
            + e.getMessage() + ")", e);
      }
      throw e;
    }
  }

  /**
   * Reads into {@code dst} (up to its remaining bytes) from {@code offset} of the chunk.
   *
   * @return the bytes read: fewer only at the end of the chunk
   */
  int read(long fileId, Layout layout, int index, long offset, ByteBuffer dst) throws IOException {
    TargetLocator.Location at = locator.locate(targetOf(layout, index));
    try {
      return nodes.readChunk(at.node(), at.wireId(), new ChunkId(fileId, index), offset, dst);
    } catch (NodeException e) {
      if (e.status() == Status.NOT_FOUND) {
        throw new IOException("chunk " + index + " of file " + fileId + " is missing on target "
            + at.targetId() + " (" + at.node() + ")", e);
      }
      throw new IOException("reading chunk " + index + " of file " + fileId + " from target "
          + at.targetId() + " on " + at.node() + ": " + e.getMessage(), e);
    }
  }

  /** Chunk listing, as the cluster manager's {@link ChunkService} sees it (lease recovery). */
  @Override
  public List<String> targets() {
    return locator.targetIds();
  }

  @Override
  public ChunkPage list(String targetId, long fileId, long cursor, int limit) throws IOException {
    TargetLocator.Location at = locator.locate(targetId);
    ListResponse page = nodes.list(at.node(), at.wireId(), fileId, cursor, limit);
    List<StoredChunk> out = new ArrayList<>(page.entries().size());
    for (ListEntry e : page.entries()) {
      out.add(new StoredChunk(e.chunk().fileId(), e.chunk().chunkIndex(), e.length(),
          e.modifiedMillis()));
    }
    return new ChunkPage(out, page.hasMore() ? page.nextCursor() : ChunkService.END);
  }

  @Override
  public boolean delete(String targetId, long fileId, int index) throws IOException {
    TargetLocator.Location at = locator.locate(targetId);
    return nodes.delete(at.node(), at.wireId(), new ChunkId(fileId, index));
  }

  @Override
  public boolean delete(String targetId, long fileId, int index, long generation)
      throws IOException {
    TargetLocator.Location at = locator.locate(targetId);
    return nodes.delete(at.node(), at.wireId(), new ChunkId(fileId, index), generation);
  }
}
