package io.parityfs.node.protocol;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * REBUILD_MEMBER (a peer operation, docs/across-nodes.md §5): sent to the node of the target
 * that is to hold member {@code member} of a chunk group of an {@code ec:K+M} layout across
 * nodes. The node reads the K {@code sources} from their nodes itself (as a client, with its own
 * node certificate), checks that each carries the tag it names (a source of another round fails
 * the request with CONFLICT, and nothing is written), restores the member from them with its
 * own Reed-Solomon codec (the same Cauchy code as the client's group codec, each source
 * zero-padded to {@code groupLength}; byte for byte what the client would compute), and stores
 * it as chunk {@code chunk} of {@code target} under the tag ({@code tagGeneration}, {@code
 * sequence}), fenced as writer {@code generation} (a REPLACE write, as a WRITE of the same tag
 * would). Answered by a {@link RebuildMemberResponse}: the stat of the version stored.
 *
 * <p>Header, 72 bytes plus the sources: target (16), fileId u64, chunkIndex u32, generation
 * u64, tagGeneration u64, sequence u64, k u8, m u8, member u8, source count u8 (= k), length
 * i64, groupLength i64; then each source ({@link RebuildSource}, 46 bytes plus its host). No
 * payload. For example an ec:2+1 parity member from two data chunks of 1 MiB and 700 KiB: k 2,
 * m 1, member 2, length 1048576, groupLength 1048576, sources (0, chunk 0, 1048576 bytes) and
 * (1, chunk 1, 716800 bytes).
 *
 * @param member the member to restore: data 0..K−1, parity K..K+M−1
 * @param length the bytes it has: for a data member what the file's length gives it, for a
 *     parity member {@code groupLength}
 * @param groupLength the group's length (its longest data chunk's, every parity chunk's)
 */
public record RebuildMemberRequest(
    long requestId,
    TargetId target,
    ChunkId chunk,
    long generation,
    long tagGeneration,
    long sequence,
    int k,
    int m,
    int member,
    long length,
    long groupLength,
    List<RebuildSource> sources)
    implements Request {
  /** Wire bytes of the header before its sources. */
  static final int FIXED_WIRE_SIZE = 72;

  public RebuildMemberRequest {
    Checks.target(target);
    Objects.requireNonNull(chunk, "chunk");
    sources = List.copyOf(Objects.requireNonNull(sources, "sources"));
    if (k < 1 || m < 1 || k + m > 0xFF) {
      throw new IllegalArgumentException("ec:" + k + "+" + m + " must have k >= 1, m >= 1 and"
          + " k + m <= 255");
    }
    if (member < 0 || member >= k + m) {
      throw new IllegalArgumentException("member (" + member + ") must be in [0, " + (k + m)
          + ") for ec:" + k + "+" + m);
    }
    if (generation < 0 || tagGeneration < 0 || tagGeneration > generation || sequence <= 0) {
      throw new IllegalArgumentException("tag (" + tagGeneration + ", " + sequence + ") with"
          + " generation " + generation + ": needs 0 <= tag generation <= generation and a"
          + " sequence > 0");
    }
    if (groupLength < 1 || groupLength > Integer.MAX_VALUE - 8 || length < 0
        || length > groupLength) {
      throw new IllegalArgumentException("length (" + length + ") and groupLength ("
          + groupLength + ") must be 0 <= length <= groupLength < 2^31 - 8, groupLength > 0");
    }
    if (sources.size() != k) {
      throw new IllegalArgumentException(sources.size() + " sources; ec:" + k + "+" + m
          + " needs exactly " + k);
    }
    Set<Integer> seen = new HashSet<>();
    for (RebuildSource s : sources) {
      if (s.member() >= k + m || s.member() == member || !seen.add(s.member())) {
        throw new IllegalArgumentException("source member " + s.member() + " must be another"
            + " member of the group than " + member + ", once, below " + (k + m));
      }
      if (s.length() > groupLength) {
        throw new IllegalArgumentException("source member " + s.member() + " of " + s.length()
            + " bytes is longer than the group (" + groupLength + ")");
      }
      if (s.isZeros() && s.member() >= k) {
        throw new IllegalArgumentException("source member " + s.member() + " is parity: it"
            + " cannot be known zeros (length 0)");
      }
    }
  }

  @Override
  public Opcode opcode() {
    return Opcode.REBUILD_MEMBER;
  }
}
