package io.parityfs.node.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One of the K members a {@link RebuildMemberRequest} rebuilds from: member number {@code
 * member} of the group (data 0..K−1, parity K..K+M−1), chunk {@code chunkIndex} of the file on
 * {@code target} at {@code host:port}, which must carry the group tag ({@code generation}, {@code
 * sequence}) and hold {@code length} bytes. A source of length 0 is a data chunk past the end of
 * the file: known zeros, read from nowhere (its target, host and port are not used: nil, empty,
 * 0). Wire form, 46 bytes plus the host: member u8, target (16), chunkIndex u32, generation u64,
 * sequence u64, length i64, port u16, host length u8, host (UTF-8).
 */
public record RebuildSource(int member, TargetId target, String host, int port, int chunkIndex,
    long generation, long sequence, long length) {
  /** Wire bytes of a source before its host. */
  static final int FIXED_WIRE_SIZE = 46;

  public RebuildSource {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(host, "host");
    if (member < 0 || member > 0xFF) {
      throw new IllegalArgumentException("member (" + member + ") must be in [0, 255]");
    }
    if (!ChunkId.validChunkIndex(Integer.toUnsignedLong(chunkIndex))) {
      throw new IllegalArgumentException("chunkIndex (" + Integer.toUnsignedString(chunkIndex)
          + ") outside [0, 2^24)");
    }
    if (length < 0) {
      throw new IllegalArgumentException("length (" + length + ") must be >= 0");
    }
    if (length > 0) {
      Checks.target(target);
      int hostBytes = host.getBytes(StandardCharsets.UTF_8).length;
      if (hostBytes == 0 || hostBytes > 255) {
        throw new IllegalArgumentException("host (" + host + ") must be 1..255 bytes of UTF-8");
      }
      if (port < 1 || port > 0xFFFF) {
        throw new IllegalArgumentException("port (" + port + ") must be in [1, 65535]");
      }
      if (generation < 0 || sequence <= 0) {
        throw new IllegalArgumentException("tag (" + generation + ", " + sequence + ") must"
            + " have a generation >= 0 and a sequence > 0");
      }
    }
  }

  /** A data member past the end of the file: {@code length} 0, known zeros. */
  public static RebuildSource zeros(int member, int chunkIndex) {
    return new RebuildSource(member, TargetId.ALL, "", 0, chunkIndex, 0, 0, 0);
  }

  /** Whether this source is known zeros (nothing to read). */
  public boolean isZeros() {
    return length == 0;
  }
}
