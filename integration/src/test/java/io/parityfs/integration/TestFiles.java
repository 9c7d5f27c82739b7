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
 * given at creation (its path then, so that a renamed file still checks).
 */
final class TestFiles {
  static final int PIECE = 256 << 10;

  private TestFiles() {}

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
    try (PfsInputStream in = c.open(path)) {
      long n = check(in, path, key);
      if (length >= 0 && n != length) {
        throw new AssertionError(path + ": read " + n + " bytes, expected " + length);
      }
      return n;
    }
  }

  /** Reads {@code in} to its end, checking every byte; the bytes read. */
  static long check(PfsInputStream in, String path, String key) throws IOException {
    byte[] buf = new byte[PIECE + 4099]; // reads straddle chunk and window boundaries
    long pos = 0;
    int n;
    while ((n = in.read(buf, 0, buf.length)) > 0) {
      long bad = ExpectedBytes.firstMismatch(key, pos, buf, 0, n);
      if (bad >= 0) {
        throw new AssertionError(path + ": wrong byte at offset " + bad + " (read of " + n
            + " bytes at " + pos + ")");
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

  /** The committed status of {@code path}. */
  static FileStatus status(ParityClient c, String path) throws IOException {
    return c.namespace().getStatus(path);
  }
}
