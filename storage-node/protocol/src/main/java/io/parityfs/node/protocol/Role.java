package io.parityfs.node.protocol;

/** Which end of a connection a {@link FrameDecoder} serves: it accepts only frames sent to it. */
public enum Role {
  /** Accepts requests (and request DATA frames). */
  NODE,
  /** Accepts responses (and response DATA frames). */
  CLIENT
}
