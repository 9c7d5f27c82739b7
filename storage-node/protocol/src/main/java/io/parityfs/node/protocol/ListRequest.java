package io.parityfs.node.protocol;


/**
 * LIST: one page of the chunks on a target, in object id order. Header, 36 bytes: target (16),
 * fileId i64 (-1: every file), cursor u64 (0: from the start; else the {@code nextCursor} of the
 * previous page, opaque to the client), limit u32 (1..10,000). Answered by {@link ListResponse}.
 */
public record ListRequest(long requestId, TargetId target, long fileId, long cursor, int limit) implements Request {
  /** {@code fileId} meaning every file. */
  public static final long ALL_FILES = -1;

  public ListRequest {
    Checks.target(target);
    if (fileId != ALL_FILES && !ChunkId.validFileId(fileId)) {
      throw new IllegalArgumentException("fileId (" + fileId + ") must be in [0, 2^40) or -1");
    }
    if (limit < 1 || limit > FrameFormat.MAX_LIST_LIMIT) {
      throw new IllegalArgumentException("limit (" + limit + ") must be in [1, 10000]");
    }
  }

  @Override
  public Opcode opcode() {
    return Opcode.LIST;
  }
}
