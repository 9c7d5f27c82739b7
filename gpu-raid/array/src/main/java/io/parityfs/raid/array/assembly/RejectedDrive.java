package io.parityfs.raid.array.assembly;

import io.parityfs.raid.array.format.ArrayException;
import java.nio.file.Path;

/**
 * A candidate drive that assembly did not take into the array, and why: {@code reason.error()}
 * is NO_LABEL, CORRUPT_LABEL, UNSUPPORTED_VERSION, FOREIGN_DRIVE, STALE_DRIVE or IO_ERROR, and
 * its message says what an admin should know.
 */
public record RejectedDrive(Path drive, ArrayException reason) {
  @Override
  public String toString() {
    return reason.error() + ": " + reason.getMessage();
  }
}
