package io.parityfs.hadoop;

import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_READ_BYTES;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_READ_CLOSE_OPERATIONS;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_READ_EXCEPTIONS;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_READ_OPERATIONS;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_READ_SEEK_OPERATIONS;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_READ_UNBUFFERED;

import io.parityfs.client.PfsInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;

/**
 * A {@link PfsInputStream} as Hadoop wants it inside an {@code FSDataInputStream}: seekable
 * (seeking past the end is an {@link EOFException}, as HDFS), positioned reads into arrays and
 * byte buffers (the chunks of a range read in parallel), unbuffer (drops the read-ahead),
 * vectored reads (the default implementation over the positioned reads), and statistics: the
 * file system's {@link FileSystem.Statistics} and this stream's {@link IOStatistics}.
 *
 * <p>As any input stream, not thread-safe, except the positioned reads.
 */
final class HadoopInputStream extends FSInputStream implements ByteBufferReadable,
    ByteBufferPositionedReadable, CanUnbuffer, StreamCapabilities, IOStatisticsSource {
  private final PfsInputStream in;
  private final String path;
  private final FileSystem.Statistics statistics;
  private final IOStatisticsStore ioStatistics = IOStatisticsBinding.iostatisticsStore()
      .withCounters(STREAM_READ_BYTES, STREAM_READ_OPERATIONS, STREAM_READ_SEEK_OPERATIONS,
          STREAM_READ_EXCEPTIONS, STREAM_READ_UNBUFFERED, STREAM_READ_CLOSE_OPERATIONS)
      .build();
  private volatile boolean closed;

  HadoopInputStream(PfsInputStream in, String path, FileSystem.Statistics statistics) {
    this.in = in;
    this.path = path;
    this.statistics = statistics;
  }

  /** This stream's read-ahead (what {@code openFile}'s read policy chose). */
  long readAheadBytes() {
    return in.readAheadBytes();
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(path + ": " + FSExceptionMessages.STREAM_IS_CLOSED);
    }
  }

  private void count(int n) {
    ioStatistics.incrementCounter(STREAM_READ_OPERATIONS);
    if (n > 0) {
      ioStatistics.incrementCounter(STREAM_READ_BYTES, n);
      if (statistics != null) {
        statistics.incrementBytesRead(n);
      }
    }
  }

  /** Counts a failure and gives Hadoop's type for it ({@link NamespaceErrors#toHadoop}). */
  private IOException failed(IOException e) {
    ioStatistics.incrementCounter(STREAM_READ_EXCEPTIONS);
    return NamespaceErrors.toHadoop(e);
  }

  @Override
  public synchronized void seek(long pos) throws IOException {
    checkOpen();
    if (pos < 0) {
      throw new EOFException(path + ": " + FSExceptionMessages.NEGATIVE_SEEK + " " + pos);
    }
    if (pos > in.length() && !grewPast(pos)) {
      throw new EOFException(path + ": " + FSExceptionMessages.CANNOT_SEEK_PAST_EOF + " " + pos
          + " (length " + in.length() + ")");
    }
    ioStatistics.incrementCounter(STREAM_READ_SEEK_OPERATIONS);
    in.seek(pos);
  }

  /**
   * For a file still being written: whether its committed length now reaches {@code pos} (a
   * one-byte positioned read before it makes the stream ask the namespace), so a reader may
   * follow a writer's hflushes.
   */
  private boolean grewPast(long pos) throws IOException {
    if (!in.file().isOpenForWrite()) {
      return false;
    }
    return in.read(pos - 1, new byte[1], 0, 1) > 0 && pos <= in.length();
  }

  @Override
  public synchronized long getPos() {
    return in.getPos(); // also after close, as HDFS (the unbuffer contract asks it)
  }

  @Override
  public boolean seekToNewSource(long targetPos) {
    return false; // one copy of each chunk; the node's array rebuilds from parity itself
  }

  @Override
  public synchronized int read() throws IOException {
    checkOpen();
    try {
      int b = in.read();
      count(b < 0 ? 0 : 1);
      return b;
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public synchronized int read(byte[] b, int off, int len) throws IOException {
    checkOpen();
    validate(b, off, len);
    if (len == 0) {
      return 0;
    }
    try {
      int n = in.read(b, off, len);
      count(n);
      return n;
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public synchronized int read(ByteBuffer buf) throws IOException {
    checkOpen();
    if (!buf.hasRemaining()) {
      return 0;
    }
    try {
      int n = in.read(buf);
      count(n);
      return n;
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public int read(long position, byte[] buffer, int offset, int length) throws IOException {
    checkOpen();
    validatePositionedReadArgs(position, buffer, offset, length);
    if (length == 0) {
      return 0;
    }
    try {
      int n = in.read(position, buffer, offset, length);
      count(n);
      return n;
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length)
      throws IOException {
    checkOpen();
    validatePositionedReadArgs(position, buffer, offset, length);
    if (length == 0) {
      return;
    }
    readFully(position, ByteBuffer.wrap(buffer, offset, length));
  }

  @Override
  public int read(long position, ByteBuffer buf) throws IOException {
    checkOpen();
    if (position < 0) {
      throw new EOFException(path + ": " + "negative position "
          + position);
    }
    if (!buf.hasRemaining()) {
      return 0;
    }
    long left = in.length() - position;
    if (left <= 0) {
      // the file may have grown (a writer's hflush): a one-byte probe refreshes the length
      byte[] one = new byte[1];
      int n = read(position, one, 0, 1);
      if (n <= 0) {
        return -1;
      }
      buf.put(one[0]);
      return 1;
    }
    int n = (int) Math.min(buf.remaining(), left);
    ByteBuffer part = buf.duplicate();
    part.limit(part.position() + n);
    readFully(position, part);
    buf.position(buf.position() + n);
    return n;
  }

  @Override
  public void readFully(long position, ByteBuffer buf) throws IOException {
    checkOpen();
    if (position < 0) {
      throw new EOFException(path + ": " + "negative position "
          + position);
    }
    int n = buf.remaining();
    try {
      in.readFully(position, buf);
      count(n);
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public synchronized long skip(long n) throws IOException {
    checkOpen();
    return in.skip(n);
  }

  @Override
  public synchronized int available() throws IOException {
    checkOpen();
    return in.available();
  }

  @Override
  public synchronized void unbuffer() {
    ioStatistics.incrementCounter(STREAM_READ_UNBUFFERED);
    in.unbuffer();
  }

  @Override
  public boolean hasCapability(String capability) {
    switch (capability.toLowerCase(Locale.ENGLISH)) {
      case StreamCapabilities.READBYTEBUFFER:
      case StreamCapabilities.PREADBYTEBUFFER:
      case StreamCapabilities.UNBUFFER:
      case StreamCapabilities.IOSTATISTICS:
      case StreamCapabilities.VECTOREDIO:
        return true;
      default:
        return false;
    }
  }

  @Override
  public IOStatistics getIOStatistics() {
    return ioStatistics;
  }

  @Override
  public synchronized void close() throws IOException {
    if (!closed) {
      closed = true;
      ioStatistics.incrementCounter(STREAM_READ_CLOSE_OPERATIONS);
      in.close();
    }
  }

  private static void validate(byte[] b, int off, int len) {
    if (b == null) {
      throw new NullPointerException("null buffer");
    }
    if (off < 0 || len < 0 || len > b.length - off) {
      throw new IndexOutOfBoundsException("offset " + off + ", length " + len + ", buffer "
          + b.length);
    }
  }

  @Override
  public String toString() {
    return "HadoopInputStream{" + path + ", pos=" + in.getPos() + ", " + ioStatistics + "}";
  }
}
