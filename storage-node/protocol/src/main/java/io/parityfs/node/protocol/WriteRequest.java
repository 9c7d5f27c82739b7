package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * WRITE: opens a write stream. Header, 54 bytes: target (16), fileId u64, chunkIndex u32, mode u8
 * ({@link WriteMode#code()}), write flags u8 (bit0 {@link #SYNC}), offset i64, total length i64
 * (-1 when not known up front), writer generation u64; 62 bytes with a group sequence u64 after
 * it (sent only when the sequence is not 0); 70 bytes with the tag's generation u64 after that
 * (sent only when it differs from the writer generation: a repairer joining a round of an older
 * generation, audit N1). (A 46-byte header, without the generation, from a client before
 * fencing, is read as generation 0; a 54-byte one as sequence 0.) No payload; the
 * frame carries MORE. The data follows in
 * {@link DataFrame}s with the same request id, the last with END; the node answers with one
 * {@link WriteResponse} after the END, or with an {@link ErrorResponse} at any time (after which
 * it discards the request's remaining DATA frames). The new version becomes visible atomically at
 * the END; a stream that stops before END (the connection closes) leaves the chunk as it was.
 *
 * @param offset see {@link WriteMode}: 0 for CREATE and REPLACE; -1 allowed for APPEND only
 * @param totalLength the number of data bytes that will follow, or -1; when given, the node refuses
 *     a stream of another length with INVALID_ARGUMENT
 * @param generation the writer generation of the file (its lease epoch, from the namespace;
 *     &gt;= 0): the target refuses it with STALE_GENERATION when it has seen a higher one for the
 *     file, and remembers it (durably) when it is higher than any seen
 * @param sequence the group sequence of the chunk (protection across nodes, docs/across-nodes.md
 *     §3), &gt;= 0; not 0: the new version is stored with the tag (generation, sequence), which
 *     the chunk stat of WRITE, STAT and READ WITH_STAT answers return; 0: no tag
 * @param tagGeneration the generation of the tag (generation, sequence) stored with a tagged
 *     version: the writer generation, or an older one (0..generation) for a member that joins a
 *     round an earlier writer stored, with that round's exact tag; the fence is still checked
 *     against {@code generation}
 */
public record WriteRequest(
    long requestId,
    TargetId target,
    ChunkId chunk,
    WriteMode mode,
    int writeFlags,
    long offset,
    long totalLength,
    long generation,
    long sequence,
    long tagGeneration)
    implements Request {
  /** Make the new version durable before answering. */
  public static final int SYNC = 1;
  static final int KNOWN_WRITE_FLAGS = SYNC;

  public WriteRequest {
    check(target, chunk, mode, writeFlags, offset, totalLength, generation);
    if (sequence < 0) {
      throw new IllegalArgumentException("sequence (" + sequence + ") must be >= 0");
    }
    if (tagGeneration < 0 || tagGeneration > generation) {
      throw new IllegalArgumentException("tagGeneration (" + tagGeneration + ") must be in 0.."
          + generation + " (the writer generation)");
    }
    if (tagGeneration != generation && sequence == 0) {
      throw new IllegalArgumentException("tagGeneration (" + tagGeneration + ") without a tag"
          + " (sequence 0)");
    }
  }

  /** A write whose tag, if any, carries the writer generation. */
  public WriteRequest(long requestId, TargetId target, ChunkId chunk, WriteMode mode,
      int writeFlags, long offset, long totalLength, long generation, long sequence) {
    this(requestId, target, chunk, mode, writeFlags, offset, totalLength, generation, sequence,
        generation);
  }

  /** A write without a group tag (sequence 0). */
  public WriteRequest(long requestId, TargetId target, ChunkId chunk, WriteMode mode,
      int writeFlags, long offset, long totalLength, long generation) {
    this(requestId, target, chunk, mode, writeFlags, offset, totalLength, generation, 0);
  }

  /**
   * Checks the arguments of a WRITE as the constructor does, without making one: a client checks
   * them before it opens a stream, when the request id is not known yet.
   *
   * @throws IllegalArgumentException or {@link NullPointerException} for an argument the
   *     constructor refuses
   */
  public static void check(TargetId target, ChunkId chunk, WriteMode mode, int writeFlags,
      long offset, long totalLength, long generation) {
    Checks.target(target);
    Objects.requireNonNull(chunk, "chunk");
    Objects.requireNonNull(mode, "mode");
    if ((writeFlags & ~KNOWN_WRITE_FLAGS) != 0) {
      throw new IllegalArgumentException("writeFlags (" + writeFlags + ") has unknown bits");
    }
    if (mode == WriteMode.APPEND ? offset < -1 : offset < 0) {
      throw new IllegalArgumentException("offset (" + offset + ") out of range for " + mode);
    }
    if ((mode == WriteMode.CREATE || mode == WriteMode.REPLACE) && offset != 0) {
      throw new IllegalArgumentException("offset (" + offset + ") must be 0 for " + mode);
    }
    if (totalLength < -1) {
      throw new IllegalArgumentException("totalLength (" + totalLength + ") must be >= -1");
    }
    if (generation < 0) {
      throw new IllegalArgumentException("generation (" + generation + ") must be >= 0");
    }
  }

  /** A write as generation 0 (tools and tests that do not fence). */
  public WriteRequest(long requestId, TargetId target, ChunkId chunk, WriteMode mode,
      int writeFlags, long offset, long totalLength) {
    this(requestId, target, chunk, mode, writeFlags, offset, totalLength, 0);
  }

  public boolean sync() {
    return (writeFlags & SYNC) != 0;
  }

  @Override
  public Opcode opcode() {
    return Opcode.WRITE;
  }
}
