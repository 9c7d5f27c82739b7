package io.parityfs.raid.codec.gpu;

/**
 * Shards in the kernels' batch layout (see the header of parity_kernels.cu): {@code stripes x
 * shards} shards of {@code words} 32-bit words each, shard j of stripe s at word
 * {@code (s * shards + j) * words}. Each shard of {@code len} bytes is padded with zeros to a
 * whole number of 16-byte units, as the GPU host code pads, and its bytes are packed into words
 * little-endian, the byte order of x86 and of the GPU.
 */
final class DeviceBatch {
  private DeviceBatch() {}

  /** Words per shard for a shard of {@code len} bytes: roundUp(len, 16) / 4. */
  static int words(int len) {
    return (len + 15) / 16 * 4;
  }

  /** Packs {@code shards[s][j]} (all of length {@code len}) into the batch layout. */
  static int[] pack(byte[][][] shards, int len) {
    int words = words(len);
    int perStripe = shards[0].length;
    int[] out = new int[shards.length * perStripe * words];
    for (int s = 0; s < shards.length; s++) {
      if (shards[s].length != perStripe) {
        throw new IllegalArgumentException(
            "stripe " + s + " has " + shards[s].length + " shards, stripe 0 has " + perStripe);
      }
      for (int j = 0; j < perStripe; j++) {
        byte[] b = shards[s][j];
        if (b.length != len) {
          throw new IllegalArgumentException(
              "shard " + j + " of stripe " + s + " has " + b.length + " bytes, not " + len);
        }
        int base = (s * perStripe + j) * words;
        for (int i = 0; i < len; i++) {
          out[base + i / 4] |= (b[i] & 0xff) << (8 * (i % 4));
        }
      }
    }
    return out;
  }

  /**
   * The first {@code bytes} bytes of shard j of stripe s of a batch with {@code perStripe}
   * shards per stripe; {@code bytes} may run into the padding, up to words(len) * 4.
   */
  static byte[] shard(int[] batch, int perStripe, int len, int s, int j, int bytes) {
    int base = (s * perStripe + j) * words(len);
    byte[] b = new byte[bytes];
    for (int i = 0; i < bytes; i++) {
      b[i] = (byte) (batch[base + i / 4] >>> (8 * (i % 4)));
    }
    return b;
  }

  /** Whether the padding bytes (len .. words(len) * 4) of every shard of the batch are zero. */
  static boolean paddingIsZero(int[] batch, int perStripe, int len) {
    int padded = words(len) * 4;
    if (padded == 0) {
      return true;
    }
    int stripes = batch.length / (perStripe * words(len));
    for (int s = 0; s < stripes; s++) {
      for (int j = 0; j < perStripe; j++) {
        byte[] b = shard(batch, perStripe, len, s, j, padded);
        for (int i = len; i < padded; i++) {
          if (b[i] != 0) {
            return false;
          }
        }
      }
    }
    return true;
  }
}
