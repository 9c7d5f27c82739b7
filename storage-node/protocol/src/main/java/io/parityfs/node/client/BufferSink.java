package io.parityfs.node.client;

import io.parityfs.node.protocol.Status;
import java.nio.ByteBuffer;
import java.util.function.IntConsumer;
import java.nio.channels.WritableByteChannel;

/**
 * A channel that fills a view of a ByteBuffer (the caller's buffer is left alone until the read
 * succeeds); more bytes than the view holds is the node's protocol violation. {@link #reset}
 * undoes what was written, for a read retried from its start.
 */
final class BufferSink implements WritableByteChannel {
  private final ByteBuffer view;
  private final int start;
  private final IntConsumer progress;

  BufferSink(ByteBuffer dst) {
    this(dst, null);
  }

  /**
   * A sink that also tells {@code progress} (when not null) how many bytes it holds after every
   * write, and 0 after a {@link #reset}; called in the writing thread.
   */
  BufferSink(ByteBuffer dst, IntConsumer progress) {
    this.view = dst.duplicate();
    this.start = view.position();
    this.progress = progress;
  }

  @Override
  public int write(ByteBuffer src) throws NodeException {
    int r = src.remaining();
    if (r > view.remaining()) {
      throw new NodeException(Status.PROTOCOL_VIOLATION, "node sent more than asked");
    }
    view.put(src);
    if (progress != null) {
      progress.accept(view.position() - start);
    }
    return r;
  }

  /** Forgets what was written. */
  void reset() {
    view.position(start);
    if (progress != null) {
      progress.accept(0);
    }
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public void close() {}
}
