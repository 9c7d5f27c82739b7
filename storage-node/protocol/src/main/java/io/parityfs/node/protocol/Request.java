package io.parityfs.node.protocol;

/** A message a client sends (other than {@link DataFrame}). */
public interface Request extends Message {
  @Override
  default boolean isResponse() {
    return false;
  }
}
