package io.parityfs.node.protocol;

/**
 * A message a node sends (other than {@link DataFrame}): the one answer to a request, or the end
 * of its stream.
 */
public interface Response extends Message {
  @Override
  default boolean isResponse() {
    return true;
  }

  /** OK, except in {@link ErrorResponse}. */
  default Status status() {
    return Status.OK;
  }
}
