package io.parityfs.raid.array.format;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.Scheme;
import java.nio.ByteBuffer;

/**
 * How a {@link Protection} is stored in the on-disk formats (drive label, shard header): three
 * bytes at consecutive offsets, kind then k then m.
 *
 * <pre>
 *   kind  1 raid5, 2 raid6, 3 rs, 4 mirror
 *   k     data shards (copies for a mirror)
 *   m     parity shards (0 for a mirror)
 *   e.g. rs:10+4 = 03 0a 04, raid6:4+2 = 02 04 02, mirror:3 = 04 03 00
 * </pre>
 */
final class ProtectionCode {
  static final byte KIND_RAID5 = 1;
  static final byte KIND_RAID6 = 2;
  static final byte KIND_RS = 3;
  static final byte KIND_MIRROR = 4;

  private ProtectionCode() {}

  /** Writes {@code p} at {@code at} (kind), {@code at + 1} (k) and {@code at + 2} (m). */
  static void put(ByteBuffer b, int at, Protection p) {
    if (p instanceof Protection.Parity parity) {
      CodecGeometry g = parity.geometry();
      b.put(at, switch (g.scheme()) {
        case XOR -> KIND_RAID5;
        case PQ -> KIND_RAID6;
        case RS_CAUCHY -> KIND_RS;
      });
      b.put(at + 1, (byte) g.k());
      b.put(at + 2, (byte) g.m());
    } else if (p instanceof Protection.Mirror m) {
      b.put(at, KIND_MIRROR);
      b.put(at + 1, (byte) m.copies());
      b.put(at + 2, (byte) 0);
    }
  }

  /**
   * Reads the protection stored at {@code at}.
   *
   * @throws IllegalArgumentException naming the value when the bytes are no valid protection
   */
  static Protection get(ByteBuffer b, int at) {
    byte kind = b.get(at);
    int k = Byte.toUnsignedInt(b.get(at + 1));
    int m = Byte.toUnsignedInt(b.get(at + 2));
    return switch (kind) {
      case KIND_RAID5 -> Protection.parity(new CodecGeometry(Scheme.XOR, k, m));
      case KIND_RAID6 -> Protection.parity(new CodecGeometry(Scheme.PQ, k, m));
      case KIND_RS -> Protection.parity(CodecGeometry.reedSolomon(k, m));
      case KIND_MIRROR -> {
        if (m != 0) {
          throw new IllegalArgumentException("mirror with m = " + m);
        }
        yield Protection.mirror(k);
      }
      default -> throw new IllegalArgumentException("protection kind " + kind);
    };
  }
}
