package io.parityfs.node.protocol;

import java.util.List;

/**
 * The answer to LIST. Header, 12 bytes: entry count u32, next cursor u64 ({@link #END}, all ones,
 * when this is the last page). Payload: count × {@link ListEntry#WIRE_SIZE} bytes, the entries in
 * object id order.
 */
public record ListResponse(long requestId, List<ListEntry> entries, long nextCursor)
    implements Response {
  /** {@code nextCursor} of the last page. */
  public static final long END = -1;

  public ListResponse {
    entries = List.copyOf(entries);
    if (entries.size() > FrameFormat.MAX_LIST_LIMIT) {
      throw new IllegalArgumentException("entries (" + entries.size() + ") must be <= 10000");
    }
  }

  public boolean hasMore() {
    return nextCursor != END;
  }

  @Override
  public Opcode opcode() {
    return Opcode.LIST;
  }
}
