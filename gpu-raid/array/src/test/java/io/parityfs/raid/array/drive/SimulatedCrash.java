package io.parityfs.raid.array.drive;

/**
 * Thrown by {@link FaultyDrive} at its crash point: the process "died" there. An Error, so no
 * {@code catch (IOException)} on the path under test can swallow it.
 */
public final class SimulatedCrash extends Error {
  private static final long serialVersionUID = 1L;

  SimulatedCrash(String message) {
    super(message);
  }
}
