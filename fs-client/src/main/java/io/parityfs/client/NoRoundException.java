package io.parityfs.client;

/**
 * A degraded read found no K members of one tag in a group ({@link GroupReads}): the group's
 * round is torn, or, for a file being written, a round may be in flight (its members land one by
 * one), which a reader of committed bytes waits out ({@link PfsInputStream}; audit H8).
 */
final class NoRoundException extends ClientException {
  private static final long serialVersionUID = 1L;

  NoRoundException(ClientStatus status, String message) {
    super(status, null, message);
  }
}
