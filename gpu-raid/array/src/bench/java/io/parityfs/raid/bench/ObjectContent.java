package io.parityfs.raid.bench;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.util.SplittableRandom;

/**
 * The bytes the array benchmark writes, cheap to produce and to check at any 4 KiB-aligned
 * offset. One random base image of one object's size (seeded, generated once); object {@code id}
 * is the base with the first 8 bytes of each 4 KiB block replaced by a stamp of (id, block), so
 * every block of every object differs and a block returned from the wrong object or offset is
 * caught. Writing an object costs one copy of the image (into the store's cell buffers, which the
 * write path copies into anyway) plus a stamp per 4 KiB; checking a read costs a vectorised
 * compare ({@link ByteBuffer#mismatch}) with the reader's stamped image ({@link #verifyImage}), or,
 * for small random reads, a stamp check and a compare with the base per 4 KiB ({@link #verify}).
 * The raw and plain-file baselines write 1 MiB slices of the base, unstamped, and check them with
 * one compare per request.
 *
 * <p>Images and the base are 4 KiB-aligned direct buffers, as O_DIRECT needs. Thread-safe once
 * built: the base is only read; each writer thread stamps its own image ({@link #image}).
 */
final class ObjectContent {
  /** Stamp granularity; every read the benchmark makes is aligned to it. */
  static final int BLOCK = 4096;
  /** Request size of the raw and plain-file baselines. */
  static final int REQUEST = 1 << 20;

  private final int objectSize;
  private final ByteBuffer base;
  private final ByteBuffer[] images;
  /** The object each image is stamped as (Long.MIN_VALUE: none yet). */
  private final long[] stamped;

  /**
   * @param objectSize bytes per object, a multiple of {@link #BLOCK}
   * @param writers how many images to keep (one per concurrent writer)
   */
  ObjectContent(int objectSize, int writers, long seed) {
    if (objectSize <= 0 || objectSize % BLOCK != 0) {
      throw new IllegalArgumentException(
          "objectSize (" + objectSize + ") must be a positive multiple of " + BLOCK);
    }
    this.objectSize = objectSize;
    int baseSize = Math.max(objectSize, REQUEST);
    base = aligned(baseSize);
    SplittableRandom random = new SplittableRandom(seed);
    LongBuffer words = base.asLongBuffer();
    while (words.hasRemaining()) {
      words.put(random.nextLong());
    }
    images = new ByteBuffer[writers];
    stamped = new long[writers];
    java.util.Arrays.fill(stamped, Long.MIN_VALUE);
    for (int i = 0; i < writers; i++) {
      images[i] = aligned(objectSize).put(0, base, 0, objectSize);
    }
  }

  /**
   * A 4 KiB-aligned direct buffer whose capacity is exactly {@code size} bytes (an aligned slice
   * alone may keep up to 4 KiB more, which {@code clear()} would bring back into play).
   */
  static ByteBuffer aligned(int size) {
    return ByteBuffer.allocateDirect(size + BLOCK).alignedSlice(BLOCK).slice(0, size);
  }

  int objectSize() {
    return objectSize;
  }

  /**
   * Writer {@code slot}'s image, stamped as object {@code objectId}: position 0, limit the object
   * size. Valid until the same slot stamps the next object.
   */
  ByteBuffer image(int slot, long objectId) {
    ByteBuffer image = images[slot];
    if (stamped[slot] != objectId) {
      for (int b = 0; b < objectSize / BLOCK; b++) {
        image.putLong(b * BLOCK, stamp(objectId, b));
      }
      stamped[slot] = objectId;
    }
    return image.duplicate().clear().limit(objectSize);
  }

  /**
   * Checks {@code got} (position 0 to limit) against bytes {@code [offset, offset + limit)} of
   * {@code image}, an {@link #image} stamped as object {@code objectId}: one vectorised compare,
   * as cheap per byte as the baselines' check. The sequential reads use it; {@link #verify} needs
   * no image and suits small reads from many threads.
   *
   * @throws Mismatch naming the first wrong byte
   */
  static void verifyImage(long objectId, ByteBuffer image, long offset, ByteBuffer got) {
    int n = got.limit();
    int diff = got.duplicate().clear().limit(n).mismatch(image.slice((int) offset, n));
    if (diff >= 0) {
      throw new Mismatch(String.format("object %d: byte %d is 0x%02x, expected 0x%02x", objectId,
          offset + diff, got.get(diff) & 0xff, image.get((int) offset + diff) & 0xff));
    }
  }

  /**
   * Checks {@code got} (position 0 to limit) against bytes {@code [offset, offset + limit)} of
   * object {@code objectId}.
   *
   * @throws Mismatch naming the first wrong byte
   */
  void verify(long objectId, long offset, ByteBuffer got) {
    int n = got.limit();
    if (offset % BLOCK != 0 || n % BLOCK != 0 || offset + n > objectSize) {
      throw new IllegalArgumentException("unaligned check: offset " + offset + ", length " + n);
    }
    ByteBuffer g = got.duplicate();
    ByteBuffer b = base.duplicate();
    for (int at = 0; at < n; at += BLOCK) {
      long block = (offset + at) / BLOCK;
      long want = stamp(objectId, block);
      long have = got.getLong(at);
      if (have != want) {
        throw new Mismatch(String.format(
            "object %d: block stamp at byte %d is 0x%016x, expected 0x%016x", objectId,
            offset + at, have, want));
      }
      int from = (int) (block * BLOCK) + Long.BYTES;
      g.clear().limit(at + BLOCK).position(at + Long.BYTES);
      b.clear().limit(from + BLOCK - Long.BYTES).position(from);
      int diff = g.mismatch(b);
      if (diff >= 0) {
        throw new Mismatch(String.format("object %d: byte %d is 0x%02x, expected 0x%02x",
            objectId, offset + at + Long.BYTES + diff,
            got.get(at + Long.BYTES + diff) & 0xff, base.get(from + diff) & 0xff));
      }
    }
  }

  /** Request {@code index} of a baseline file: a 1 MiB slice of the base (aligned, read-only use). */
  ByteBuffer request(long index) {
    int slices = base.capacity() / REQUEST;
    return base.slice((int) (index % slices) * REQUEST, REQUEST);
  }

  /** Checks one 1 MiB request of a baseline file read back. */
  void verifyRequest(String file, long index, ByteBuffer got) {
    int diff = got.slice(0, REQUEST).mismatch(request(index));
    if (diff >= 0) {
      throw new Mismatch(String.format("%s: byte %d differs from what was written", file,
          index * REQUEST + diff));
    }
  }

  /** Distinct for every (object, block) the benchmark uses (blocks < 2^32). */
  static long stamp(long objectId, long block) {
    return (objectId * 0x9E3779B97F4A7C15L) ^ (block << 16) ^ 0x5AFE_0000_0000_0001L;
  }

  /** A byte read back differs from the byte written: the benchmark stops (exit status 2). */
  static final class Mismatch extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Mismatch(String message) {
      super(message);
    }
  }
}
