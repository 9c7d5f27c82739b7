package io.parityfs.raid.array.drive;

import java.io.IOException;
import java.nio.file.Path;

/** A FaultyDrive with no faults armed is a plain Drive. */
class FaultyDriveContractTest extends DriveContractTest {
  @Override
  Drive newDrive(Path dir) throws IOException {
    return new FaultyDrive(FileDrive.open(dir, Drive.IoMode.DIRECT), 7);
  }
}
