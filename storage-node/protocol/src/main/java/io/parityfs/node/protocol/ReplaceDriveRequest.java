package io.parityfs.node.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * REPLACE_DRIVE: puts a new, empty drive (a directory on the node) in {@code slot} of an array and
 * starts rebuilding it. Header, 21 + n bytes: target (16), slot u16, flags u8 (bit0
 * {@link #FORCE}: reuse a drive that carries a label or files), path length u16 (n, 1..4096),
 * path (n bytes of UTF-8, no NUL). Answered by {@link AdminResponse} (JSON).
 */
public record ReplaceDriveRequest(long requestId, TargetId target, int slot, String path, int flags)
    implements Request {
  public static final int FORCE = 1;

  public ReplaceDriveRequest {
    Checks.target(target);
    Checks.slot(slot);
    Objects.requireNonNull(path, "path");
    int n = path.getBytes(StandardCharsets.UTF_8).length;
    if (n == 0 || n > FrameFormat.MAX_PATH_BYTES || path.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("path (" + path + ") must be 1..4096 UTF-8 bytes, no NUL");
    }
    if ((flags & ~FORCE) != 0) {
      throw new IllegalArgumentException("flags (" + flags + ") has unknown bits");
    }
  }

  @Override
  public Opcode opcode() {
    return Opcode.REPLACE_DRIVE;
  }
}
