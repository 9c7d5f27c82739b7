package io.parityfs.node.protocol;

/** How a WRITE applies its data to the chunk. Each write makes a new version atomically. */
public enum WriteMode {
  /** A new chunk; offset must be 0; ALREADY_EXISTS if the chunk exists. */
  CREATE(1),
  /** The data becomes the whole chunk, whether or not it existed; offset must be 0. */
  REPLACE(2),
  /**
   * The data replaces bytes from {@code offset}; the chunk may grow. The chunk must exist and
   * offset must be at most its length (NOT_FOUND, INVALID_ARGUMENT).
   */
  OVERWRITE(3),
  /**
   * The data goes at the end. {@code offset} is the length the writer expects the chunk to have
   * (CONFLICT if it differs), or -1 for wherever the end is. Creates the chunk if it is absent
   * and the expected length is 0 or -1.
   */
  APPEND(4);

  private final int code;

  WriteMode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The mode with this value, or {@code null}. */
  public static WriteMode fromCode(int code) {
    for (WriteMode m : values()) {
      if (m.code == code) {
        return m;
      }
    }
    return null;
  }
}
