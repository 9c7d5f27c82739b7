package io.parityfs.node.client;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * The remaining bytes of some ByteBuffers as a channel, leaving the buffers alone; when they are
 * all direct, also as slices of their own memory ({@link #next}), for a write that sends them
 * without a copy.
 */
final class BuffersChannel implements ReadableByteChannel {
  private final ByteBuffer[] buffers;
  private int index;

  BuffersChannel(ByteBuffer[] data) {
    buffers = new ByteBuffer[data.length];
    for (int i = 0; i < data.length; i++) {
      buffers[i] = data[i].duplicate();
    }
  }

  /** Whether every buffer is direct, so {@link #next} can hand out their memory as it is. */
  boolean direct() {
    for (ByteBuffer b : buffers) {
      if (!b.isDirect()) {
        return false;
      }
    }
    return true;
  }

  /** The next at most {@code max} bytes as a read-only slice of a buffer, or null at the end. */
  ByteBuffer next(int max) {
    ByteBuffer slice = take(max);
    return slice == null ? null : slice.asReadOnlyBuffer();
  }

  @Override
  public int read(ByteBuffer dst) {
    ByteBuffer slice = take(dst.remaining());
    if (slice == null) {
      return -1;
    }
    int n = slice.remaining();
    dst.put(slice);
    return n;
  }

  /** The next at most {@code max} bytes as a slice of a buffer, consumed; null at the end. */
  private ByteBuffer take(int max) {
    while (index < buffers.length && !buffers[index].hasRemaining()) {
      index++;
    }
    if (index == buffers.length) {
      return null;
    }
    ByteBuffer src = buffers[index];
    int n = Math.min(src.remaining(), max);
    ByteBuffer slice = src.slice(src.position(), n);
    src.position(src.position() + n);
    return slice;
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public void close() {}
}
