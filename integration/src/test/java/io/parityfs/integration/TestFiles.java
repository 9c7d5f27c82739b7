package io.parityfs.integration;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import java.io.IOException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongConsumer;

/**
 * Writing and checking files of {@link ExpectedBytes}: the content of a file is keyed by a name
 * given by its writer ({@link ExpectedBytes#key}: the path at creation and the writer, so that a
 * renamed file still checks and two writers of one file write different bytes); a file written
 * by several writers in turn (an append after a lease recovery) is checked against a {@link
 * Content}.
 */
final class TestFiles {
  static final int PIECE = 256 << 10;

  private TestFiles() {}

  /**
   * What a file holds: from each boundary on, the bytes of one writer's key (at their file
   * offsets), up to the next boundary. Immutable.
   */
  static final class Content {
    private final long[] from;
    private final String[] keys;

    private Content(long[] from, String[] keys) {
      this.from = from;
      this.keys = keys;
    }

    /** A file written by one writer: {@code key} from offset 0. */
    static Content of(String key) {
      return new Content(new long[] {0}, new String[] {key});
    }

    /** This content up to {@code offset}, then {@code key}'s bytes from {@code offset} on. */
    Content then(long offset, String key) {
      int n = 0;
      while (n < from.length && from[n] < offset) {
        n++;
      }
      long[] f = java.util.Arrays.copyOf(from, n + 1);
      String[] k = java.util.Arrays.copyOf(keys, n + 1);
      f[n] = offset;
      k[n] = key;
      return new Content(f, k);
    }

    /** The index of the extent holding {@code offset}. */
    private int extent(long offset) {
      int i = from.length - 1;
      while (i > 0 && from[i] > offset) {
        i--;
      }
      return i;
    }

    /** The key whose bytes are at {@code offset}. */
    String keyAt(long offset) {
      return keys[extent(offset)];
    }

    /**
     * The file offset of the first byte of {@code b[off..off+len]} (read at {@code offset})
     * that is not this content's, or -1.
     */
    long firstMismatch(long offset, byte[] b, int off, int len) {
      int done = 0;
      while (done < len) {
        long at = offset + done;
        int i = extent(at);
        long end = i + 1 < from.length ? from[i + 1] : Long.MAX_VALUE;
        int n = (int) Math.min(len - done, end - at);
        long bad = ExpectedBytes.firstMismatch(keys[i], at, b, off + done, n);
        if (bad >= 0) {
          return bad;
        }
        done += n;
      }
      return -1;
    }

    /** Which writer's bytes {@code offset} should hold, for a failure message. */
    String describe(long offset) {
      return "expected the bytes of " + keyAt(offset);
    }

    @Override
    public String toString() {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < from.length; i++) {
        b.append(i == 0 ? "" : ", ").append(from[i]).append(".. ").append(keys[i]);
      }
      return b.toString();
    }
  }

  /**
   * Creates {@code path} and writes {@code size} bytes keyed {@code key}, hsyncing every {@code
   * hsyncEvery} bytes (0: never) and closing; {@code acked} hears each length that an hsync or
   * the close acknowledged, after it returned.
   */
  static void write(ParityClient c, String path, String key, long size, long hsyncEvery,
      LongConsumer acked) throws IOException {
    try (PfsOutputStream out = c.create(path, CreateOptions.file())) {
      writeTo(out, key, size, hsyncEvery, acked);
      out.close();
      acked.accept(size);
    }
  }

  /** Writes bytes {@code out.position()..size} of {@code key} into an open stream. */
  static void writeTo(PfsOutputStream out, String key, long size, long hsyncEvery,
      LongConsumer acked) throws IOException {
    byte[] buf = new byte[PIECE];
    long nextSync = hsyncEvery > 0 ? (out.position() / hsyncEvery + 1) * hsyncEvery
        : Long.MAX_VALUE;
    while (out.position() < size) {
      long at = out.position();
      int n = (int) Math.min(Math.min(buf.length, size - at), nextSync - at);
      ExpectedBytes.fill(key, at, buf, 0, n);
      out.write(buf, 0, n);
      if (out.position() == nextSync) {
        out.hsync();
        acked.accept(out.position());
        nextSync += hsyncEvery;
      }
    }
  }

  /**
   * Reads {@code path} sequentially to its end and checks every byte against {@code key};
   * AssertionError naming the first wrong offset, or when the length is not {@code length}
   * (-1: any).
   *
   * @return the length read
   */
  static long verify(ParityClient c, String path, String key, long length) throws IOException {
    return verify(c, path, Content.of(key), length);
  }

  /** {@link #verify(ParityClient, String, String, long)} against a file of several writers. */
  static long verify(ParityClient c, String path, Content content, long length)
      throws IOException {
    try (PfsInputStream in = c.open(path)) {
      long n = check(in, path, content);
      if (length >= 0 && n != length) {
        throw new AssertionError(path + ": read " + n + " bytes, expected " + length);
      }
      return n;
    }
  }

  /** Reads {@code in} to its end, checking every byte; the bytes read. */
  static long check(PfsInputStream in, String path, String key) throws IOException {
    return check(in, path, Content.of(key));
  }

  /** Reads {@code in} to its end, checking every byte against {@code content}. */
  static long check(PfsInputStream in, String path, Content content) throws IOException {
    byte[] buf = new byte[PIECE + 4099]; // reads straddle chunk and window boundaries
    long pos = 0;
    int n;
    while ((n = in.read(buf, 0, buf.length)) > 0) {
      long bad = content.firstMismatch(pos, buf, 0, n);
      if (bad >= 0) {
        throw new AssertionError(path + ": wrong byte at offset " + bad + " (read of " + n
            + " bytes at " + pos + "; " + content.describe(bad) + whose(buf, (int) (bad - pos),
            bad) + ")");
      }
      pos += n;
    }
    return pos;
  }

  /**
   * A positional read of up to 1 MiB at a random offset of a file of {@code length} bytes,
   * checked; IOException when the read fails.
   */
  static void preadRandom(PfsInputStream in, String path, String key, long length)
      throws IOException {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    long at = r.nextLong(length);
    byte[] buf = new byte[(int) Math.min(1 << 20, length - at)];
    int n = in.read(at, buf, 0, buf.length);
    if (n <= 0) {
      throw new AssertionError(path + ": pread at " + at + " of a " + length
          + "-byte file returned " + n);
    }
    long bad = ExpectedBytes.firstMismatch(key, at, buf, 0, n);
    if (bad >= 0) {
      throw new AssertionError(path + ": pread at " + at + " returned a wrong byte at " + bad);
    }
  }

  /**
   * Which of a few likely keys (any other writer of the same extent is not known here) the
   * wrong byte's aligned word belongs to: an empty string when none, else ", it is ...".
   */
  private static String whose(byte[] b, int i, long at) {
    int start = i - (int) (at & 7);
    if (start < 0 || start + 8 > b.length) {
      return "";
    }
    boolean zero = true;
    for (int k = start; k < start + 8; k++) {
      zero &= b[k] == 0;
    }
    return zero ? ", read zeros" : "";
  }

  /** The committed status of {@code path}. */
  static FileStatus status(ParityClient c, String path) throws IOException {
    return c.namespace().getStatus(path);
  }
}
