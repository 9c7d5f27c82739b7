package io.parityfs.hadoop;

import static org.apache.hadoop.fs.statistics.StoreStatisticNames.OP_HFLUSH;
import static org.apache.hadoop.fs.statistics.StoreStatisticNames.OP_HSYNC;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_WRITE_BYTES;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_WRITE_EXCEPTIONS;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_WRITE_TOTAL_DATA;

import io.parityfs.client.PfsOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;

/**
 * A {@link PfsOutputStream} as Hadoop wants it inside an {@code FSDataOutputStream} (which
 * counts the bytes in {@code FileSystem.Statistics}): {@link Syncable} — {@code hflush} and
 * {@code hsync} store the partial chunk and commit the length, so readers see every byte written
 * so far (the two are the same: a chunk write is on the node's drives when acknowledged) — and
 * {@code iostatistics}.
 *
 * <p>{@link #flush()} does nothing: Hadoop promises nothing for it, and every {@code hflush}
 * rewrites the partial last chunk and writes the namespace, which a {@code flush} per buffered
 * writer line would make expensive. Not thread-safe (one writer at a time).
 */
final class HadoopOutputStream extends OutputStream implements Syncable, StreamCapabilities,
    IOStatisticsSource {
  private final PfsOutputStream out;
  private final String path;
  private final IOStatisticsStore ioStatistics = IOStatisticsBinding.iostatisticsStore()
      .withCounters(STREAM_WRITE_BYTES, STREAM_WRITE_TOTAL_DATA, STREAM_WRITE_EXCEPTIONS,
          OP_HFLUSH, OP_HSYNC)
      .build();

  HadoopOutputStream(PfsOutputStream out, String path) {
    this.out = out;
    this.path = path;
  }

  /** Counts a failure and gives Hadoop's type for it ({@link NamespaceErrors#toHadoop}). */
  private IOException failed(IOException e) {
    ioStatistics.incrementCounter(STREAM_WRITE_EXCEPTIONS);
    return NamespaceErrors.toHadoop(e);
  }

  @Override
  public void write(int b) throws IOException {
    try {
      out.write(b);
    } catch (IOException e) {
      throw failed(e);
    }
    ioStatistics.incrementCounter(STREAM_WRITE_BYTES);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    try {
      out.write(b, off, len);
    } catch (IOException e) {
      throw failed(e);
    }
    ioStatistics.incrementCounter(STREAM_WRITE_BYTES, len);
  }

  @Override
  public void flush() {
    // see the class comment
  }

  @Override
  public void hflush() throws IOException {
    ioStatistics.incrementCounter(OP_HFLUSH);
    try {
      out.hflush();
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public void hsync() throws IOException {
    ioStatistics.incrementCounter(OP_HSYNC);
    try {
      out.hsync();
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      out.close();
    } catch (IOException e) {
      throw failed(e);
    } finally {
      ioStatistics.setCounter(STREAM_WRITE_TOTAL_DATA, out.position());
    }
  }

  @SuppressWarnings("deprecation") // HFLUSH: still what callers probe
  @Override
  public boolean hasCapability(String capability) {
    switch (capability.toLowerCase(Locale.ENGLISH)) {
      case StreamCapabilities.HFLUSH:
      case StreamCapabilities.HSYNC:
      case StreamCapabilities.IOSTATISTICS:
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
  public String toString() {
    return "HadoopOutputStream{" + path + ", " + ioStatistics + "}";
  }
}
