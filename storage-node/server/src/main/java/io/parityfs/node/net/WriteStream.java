package io.parityfs.node.net;

import io.parityfs.node.chunk.ChunkInfo;
import io.parityfs.node.chunk.ChunkStore;
import io.parityfs.node.chunk.ChunkWriter;
import io.parityfs.node.protocol.DataFrame;
import io.parityfs.node.protocol.ErrorResponse;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.Response;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.WriteRequest;
import io.parityfs.node.protocol.WriteResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One WRITE: the event loop queues its DATA frames ({@link #enqueue}); one worker task at a time
 * ({@link #run}) opens the chunk writer, feeds it the frames in order, and commits at the END
 * frame. The answer (WriteResponse or an error) is sent once; after an error, or when the
 * connection closes ({@link #cancel}), the writer is aborted (nothing becomes visible) and the
 * frames still queued are released.
 *
 * <p>One stream writes a chunk at a time: a stream that finds its chunk claimed by another
 * ({@link NettyNodeServer#claimOrQueue}) waits its turn, its frames queued and not yet counted as
 * consumed (so its connection's backpressure holds), until the holder releases the chunk ({@link
 * #claimGranted}), for at most {@code claimWait} ({@link #waitForClaim}); then it is refused
 * CONFLICT. The usual holder is the same writer's earlier attempt: a client whose WRITE timed
 * out retries it while the node is still committing the first one (the END frame arrived, so
 * closing the connection does not abort it), and the retry must not fail for that.
 *
 * <p>Thread safety: {@link #enqueue}, {@link #cancel}, {@link #fail} from any thread; the writer
 * itself is touched only by the task, and tasks of one stream never overlap.
 */
final class WriteStream implements Runnable {
  final WriteRequest request;
  final PendingRequest pending;
  private final ChunkStore store;
  private final ConnectionHandler connection;
  private final NettyNodeServer server;
  private final String claim;
  private final ConcurrentLinkedQueue<DataFrame> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final AtomicBoolean answered = new AtomicBoolean();
  private final AtomicBoolean released = new AtomicBoolean();
  private volatile boolean cancelled;
  /** Whether this stream holds its chunk's claim (else it waits its turn). */
  private volatile boolean claimed;
  /** Bytes received so far (event loop only). */
  long received;

  // task only
  private boolean opened;
  private boolean committed;
  /** The error to answer once the writer is aborted; null: answer nothing. */
  private volatile ErrorResponse failure;
  private ChunkWriter writer;
  private long written;

  WriteStream(WriteRequest request, PendingRequest pending, ChunkStore store,
      ConnectionHandler connection, NettyNodeServer server, String claim) {
    this.request = request;
    this.pending = pending;
    this.store = store;
    this.connection = connection;
    this.server = server;
    this.claim = claim;
  }

  /** Whether the stream has failed or was cancelled: its further frames are discarded. */
  boolean failed() {
    return cancelled;
  }

  /** Opens the writer (when the first task runs): the stream holds its chunk's claim. */
  void start() {
    claimed = true;
    schedule();
  }

  /**
   * The chunk is claimed by another stream: wait to be handed the claim, for at most {@code
   * wait}; then fail CONFLICT (and leave the queue).
   */
  void waitForClaim(ScheduledExecutorService timer, Duration wait) {
    timer.schedule(() -> {
      if (!claimed) {
        fail(Status.CONFLICT, "chunk " + request.chunk() + " is being written by another stream"
            + " (waited " + wait.toMillis() + " ms for it)");
      }
    }, wait.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The holder released the chunk: this stream holds it now (from any thread). */
  void claimGranted() {
    claimed = true;
    schedule();
  }

  void enqueue(DataFrame d) {
    queue.add(d);
    if (claimed || cancelled) {
      schedule(); // while it waits, its frames wait too (claimGranted drains them)
    }
  }

  /** The connection is gone: abort, answer nothing (the request is finished silently). */
  void cancel() {
    cancelled = true;
    schedule();
  }

  /** Ends the stream with an error answer (once), aborting the writer. */
  void fail(Status status, String message) {
    // Answered only once the writer is aborted and the chunk released (in drain), so that a
    // client retrying at once does not find the chunk still claimed (CONFLICT).
    if (failure == null) {
      failure = new ErrorResponse(request.requestId(), Opcode.WRITE, status, message);
    }
    cancelled = true;
    schedule();
  }

  private void schedule() {
    if (scheduled.compareAndSet(false, true)) {
      server.worker(this);
    }
  }

  @Override
  public void run() {
    try {
      drain();
    } finally {
      scheduled.set(false);
      if ((claimed && !queue.isEmpty()) || (cancelled && !released.get())) {
        schedule();
      }
    }
  }

  private void drain() {
    if (!claimed) {
      if (!cancelled) {
        return; // waits its turn
      }
      if (server.withdrawClaim(claim, this)) {
        // gave up (or failed) while waiting: it never held the claim, so it releases none
        released.set(true);
        for (DataFrame d; (d = queue.poll()) != null; ) {
          int n = d.content().readableBytes();
          d.release();
          connection.consumed(n);
        }
        answer(failure);
        return;
      }
      claimed = true; // handed the claim just now: release it below, as a holder
    }
    if (!opened && !cancelled) {
      opened = true;
      try {
        writer = store.openWrite(request.chunk(), request.offset(), request.mode(),
            request.generation(), request.sequence(), request.tagGeneration());
        server.writerOpened();
      } catch (Exception e) {
        fail(WireStatus.of(e), WireStatus.message(e));
      }
    }
    for (DataFrame d; (d = queue.poll()) != null; ) {
      int n = d.content().readableBytes();
      try {
        if (!cancelled && writer != null) {
          if (d.crcChecked()) {
            for (ByteBuffer b : d.content().nioBuffers()) {
              writer.write(b);
            }
          } else {
            // Checked against the sender's CRC as the cells' checksums are taken: one pass.
            writer.write(d.content().nioBuffers(), d.payloadCrc());
          }
          written += n;
          if (d.isEnd()) {
            commit();
          }
        }
      } catch (Exception e) {
        fail(WireStatus.of(e), WireStatus.message(e));
      } finally {
        d.release();
        connection.consumed(n);
      }
    }
    if (cancelled || committed) {
      closeWriter();
      releaseClaim();
      // An error answer (fail), or none: the connection went away.
      answer(failure);
    }
  }

  private void commit() throws Exception {
    if (request.totalLength() >= 0 && written != request.totalLength()) {
      fail(Status.INVALID_ARGUMENT, "WRITE of chunk " + request.chunk() + ": " + written
          + " bytes received, the request announced " + request.totalLength());
      return;
    }
    ChunkInfo info = writer.commit();
    committed = true;
    closeWriter();
    releaseClaim(); // before the answer: the client may write the chunk again at once
    answer(new WriteResponse(request.requestId(), ConnectionHandler.stat(info)));
  }

  private void releaseClaim() {
    if (released.compareAndSet(false, true)) {
      server.releaseChunk(claim);
    }
  }

  private void closeWriter() {
    if (writer != null) {
      writer.abort(); // harmless after commit
      writer = null;
      server.writerClosed();
    }
  }

  /** Sends the answer once; {@code null}: finish the request without sending anything. */
  private void answer(Response r) {
    if (answered.compareAndSet(false, true)) {
      pending.bytesIn = written;
      connection.finishFromWorker(pending, r, this);
    }
  }
}
