package io.parityfs.integration;

import java.nio.charset.StandardCharsets;

/**
 * The bytes a test file holds: a pure function of a key and the file offset, so any byte read
 * back anywhere, by any process, is checked without keeping a copy of what was written. Each
 * aligned 8-byte word is {@code splitmix64(seed(key) + word index)}, so a byte shifted by any
 * distance, a chunk of another file, a stale version of a chunk of an earlier file, or zeros all
 * read as wrong.
 *
 * <p>The key names the path <em>and the writer</em> ({@link #key}): two writers of one path at
 * one offset write different bytes, so a chunk of an earlier writer (a fenced zombie, the
 * writer before a lease recovery or a truncate) brought back under a later one reads as wrong,
 * not as a valid copy. {@link TestFiles.Content} says which writer's key each range of a file
 * holds.
 */
final class ExpectedBytes {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private ExpectedBytes() {}

  /**
   * The key of what {@code writer} (any name the test gives one open-for-write of the file: a
   * thread, a process, a round) writes into {@code path}.
   */
  static String key(String path, String writer) {
    return path + "#" + writer;
  }

  /** FNV-1a 64 of the name's UTF-8 bytes. */
  static long seed(String name) {
    long h = 0xcbf29ce484222325L;
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }

  private static long word(long seed, long index) {
    long z = seed + (index + 1) * GOLDEN;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Writes the bytes of {@code name} at {@code offset..offset+len} into {@code b[off..]}. */
  static void fill(String name, long offset, byte[] b, int off, int len) {
    long seed = seed(name);
    long w = word(seed, offset >>> 3);
    for (int i = 0; i < len; i++) {
      long at = offset + i;
      if (i > 0 && (at & 7) == 0) {
        w = word(seed, at >>> 3);
      }
      b[off + i] = (byte) (w >>> ((at & 7) << 3));
    }
  }

  static byte[] of(String name, long offset, int len) {
    byte[] b = new byte[len];
    fill(name, offset, b, 0, len);
    return b;
  }

  /**
   * The file offset of the first byte of {@code b[off..off+len]} that differs from what {@code
   * name} holds at {@code offset..}, or -1 when all are right.
   */
  static long firstMismatch(String name, long offset, byte[] b, int off, int len) {
    long seed = seed(name);
    long w = word(seed, offset >>> 3);
    for (int i = 0; i < len; i++) {
      long at = offset + i;
      if (i > 0 && (at & 7) == 0) {
        w = word(seed, at >>> 3);
      }
      if (b[off + i] != (byte) (w >>> ((at & 7) << 3))) {
        return at;
      }
    }
    return -1;
  }
}
