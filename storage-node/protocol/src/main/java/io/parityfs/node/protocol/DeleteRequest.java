package io.parityfs.node.protocol;

import java.util.Objects;

/**
 * DELETE: removes a chunk. Header, 36 bytes: target (16), fileId u64, chunkIndex u32, writer
 * generation u64 ({@link #ANY}: all ones). Answered by {@link DeleteResponse}; a missing chunk is
 * OK with {@code existed = false}. A generation other than {@link #ANY} is fenced as a WRITE's
 * is: refused with STALE_GENERATION when older than the file's fence on the target, and raising
 * the fence (durably, before the delete) when newer, also when the chunk does not exist, which
 * is how lease recovery fences a file's targets. (A 28-byte header, without the generation, from
 * a client before fencing, is read as generation 0.)
 *
 * @param generation the file's writer generation, or {@link #ANY} for the deletes of a removed
 *     file's chunks (deferred deletes, orphan collection), which no fence refuses or changes
 */
public record DeleteRequest(long requestId, TargetId target, ChunkId chunk, long generation)
    implements Request {
  /** A delete outside any writer generation: never refused by a fence, never raises one. */
  public static final long ANY = -1;

  public DeleteRequest {
    Checks.target(target);
    Objects.requireNonNull(chunk, "chunk");
    if (generation < ANY) {
      throw new IllegalArgumentException("generation (" + generation + ") must be >= 0 or ANY");
    }
  }

  /** A delete outside any writer generation ({@link #ANY}). */
  public DeleteRequest(long requestId, TargetId target, ChunkId chunk) {
    this(requestId, target, chunk, ANY);
  }

  @Override
  public Opcode opcode() {
    return Opcode.DELETE;
  }
}
