package io.parityfs.node.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.parityfs.node.chunk.ChunkInfo;
import io.parityfs.node.chunk.ChunkStore;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.ErrorResponse;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.ReadRequest;
import io.parityfs.node.protocol.Status;
import io.parityfs.raid.array.format.RunningCrc;
import io.parityfs.raid.array.object.PieceSink;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One READ: each worker task ({@link #run}) reads the next DATA frame's bytes (at most the
 * server's read frame size) and hands them to the event loop as one composite buffer of views of
 * the array buffers the drives read them into (lent until the frame is written, {@link
 * PieceSink}: the node copies none of them). The event loop writes it and schedules the next
 * task only while the connection is writable (otherwise it parks the stream until the
 * writability changes). So a reader that does not read holds the node to about the write
 * buffer's high-water mark plus one frame per stream (and the array buffers those frames view,
 * sized to about what they send).
 *
 * <p>A READ takes the chunk's version once, at its start, and reads every frame from that
 * version: a write that commits while a long READ is under way ends the READ with CONFLICT
 * instead of mixing two versions. The pin is per request, so a client must not resume a cut
 * READ at offset + done with a new request (NodeClient restarts or fails it instead).
 *
 * <p>A frame carries the CRC32C the array handed on with its bytes (the stored checksums of the
 * whole cells in it: {@link ChunkStore#read(io.parityfs.node.chunk.ChunkId, long, long, int,
 * PieceSink, RunningCrc)}), not one the encoder takes again: the bytes are checksummed once on the
 * node, and what the client checks them against is what was stored with them, so damage in
 * the node's memory after the drive read is caught by the client.
 */
final class ReadStream implements Runnable {
  /** Test hook: sees each frame's bytes after they were read and checked, before they are sent. */
  static volatile Consumer<ByteBuf> BEFORE_EMIT;
  /**
   * Pieces one frame may hold without Netty merging them (a copy): a 1 MiB frame of 4 KiB cells
   * is 256 whole cells, plus a part at each end.
   */
  private static final int MAX_PIECES = 1024;

  final ReadRequest request;
  final PendingRequest pending;
  private final ChunkStore store;
  private final ConnectionHandler connection;
  private final ByteBufAllocator alloc;
  private final int frameSize;
  private boolean started;
  private long pos;
  private long end;
  private long version;
  /** The stat the first frame carries (READ WITH_STAT), null once sent or when not asked. */
  private ChunkStat stat;

  ReadStream(ReadRequest request, PendingRequest pending, ChunkStore store,
      ConnectionHandler connection, ByteBufAllocator alloc, int frameSize) {
    this.request = request;
    this.pending = pending;
    this.store = store;
    this.connection = connection;
    this.alloc = alloc;
    this.frameSize = frameSize;
  }

  /**
   * A view of a store buffer lent to a frame ({@link PieceSink.Loan}): the frame sends it as
   * it is, and the buffer goes back to the store when Netty has written it (or dropped it).
   */
  private static final class LentBuf extends UnpooledDirectByteBuf {
    private final PieceSink.Loan loan;

    LentBuf(ByteBufAllocator alloc, ByteBuffer view, PieceSink.Loan loan) {
      super(alloc, view, view.remaining());
      this.loan = loan;
    }

    @Override
    protected void deallocate() {
      super.deallocate();
      loan.release();
    }
  }

  @Override
  public void run() {
    ByteBuf buf = null;
    try {
      if (!started) {
        started = true;
        Optional<ChunkInfo> info = store.stat(request.chunk());
        if (info.isEmpty()) {
          connection.readFailed(this, new ErrorResponse(request.requestId(), Opcode.READ,
              Status.NOT_FOUND, "chunk " + request.chunk() + " does not exist"));
          return;
        }
        long length = info.get().length();
        version = info.get().version(); // every frame reads this version: no mixed bytes
        if (request.withStat()) {
          stat = ConnectionHandler.stat(info.get());
        }
        pos = request.offset();
        long want = request.length() < 0 ? Long.MAX_VALUE : request.length();
        end = Math.min(length, pos + Math.min(want, Long.MAX_VALUE - pos));
      }
      int n = (int) Math.max(0, Math.min(frameSize, end - pos));
      CompositeByteBuf frame = alloc.compositeDirectBuffer(MAX_PIECES);
      buf = frame;
      PieceSink pieces = (view, loan) -> frame.addComponent(true,
          loan != null ? new LentBuf(alloc, view, loan) : alloc.directBuffer(view.remaining())
              .writeBytes(view));
      int got = 0;
      RunningCrc crc = new RunningCrc();
      while (got < n) {
        int r = store.read(request.chunk(), version, pos + got, n - got, pieces, crc);
        if (r <= 0) {
          break; // the chunk got shorter meanwhile: end here
        }
        got += r;
      }
      pos += got;
      boolean last = got < n || pos >= end;
      ByteBuf out = buf;
      buf = null;
      ChunkStat first = stat;
      stat = null;
      Consumer<ByteBuf> hook = BEFORE_EMIT;
      if (hook != null) {
        hook.accept(out);
      }
      connection.emit(this, out, last, first, crc.value());
    } catch (Exception e) {
      connection.readFailed(this, new ErrorResponse(request.requestId(), Opcode.READ,
          WireStatus.of(e), WireStatus.message(e)));
    } finally {
      if (buf != null) {
        buf.release();
      }
    }
  }
}
