package io.parityfs.node.client;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/** The remaining bytes of some ByteBuffers as a channel, leaving the buffers alone. */
final class BuffersChannel implements ReadableByteChannel {
  private final ByteBuffer[] buffers;
  private int index;

  BuffersChannel(ByteBuffer[] data) {
    buffers = new ByteBuffer[data.length];
    for (int i = 0; i < data.length; i++) {
      buffers[i] = data[i].duplicate();
    }
  }

  @Override
  public int read(ByteBuffer dst) {
    while (index < buffers.length && !buffers[index].hasRemaining()) {
      index++;
    }
    if (index == buffers.length) {
      return -1;
    }
    ByteBuffer src = buffers[index];
    int n = Math.min(src.remaining(), dst.remaining());
    ByteBuffer slice = src.duplicate();
    slice.limit(slice.position() + n);
    dst.put(slice);
    src.position(src.position() + n);
    return n;
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public void close() {}
}
