package io.parityfs.node.client;

import io.parityfs.node.protocol.Status;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * A channel that fills a view of a ByteBuffer (the caller's buffer is left alone until the read
 * succeeds); more bytes than the view holds is the node's protocol violation. {@link #reset}
 * undoes what was written, for a read retried from its start.
 */
final class BufferSink implements WritableByteChannel {
  private final ByteBuffer view;
  private final int start;

  BufferSink(ByteBuffer dst) {
    this.view = dst.duplicate();
    this.start = view.position();
  }

  @Override
  public int write(ByteBuffer src) throws NodeException {
    int r = src.remaining();
    if (r > view.remaining()) {
      throw new NodeException(Status.PROTOCOL_VIOLATION, "node sent more than asked");
    }
    view.put(src);
    return r;
  }

  /** Forgets what was written. */
  void reset() {
    view.position(start);
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public void close() {}
}
