package io.parityfs.raid.array.drive;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Path;

/** Runs the contract with O_DIRECT where the temp directory's file system supports it. */
class FileDriveDirectTest extends DriveContractTest {
  @Override
  Drive newDrive(Path dir) throws IOException {
    FileDrive d = FileDrive.open(dir, Drive.IoMode.DIRECT);
    assumeTrue(d.ioMode() == Drive.IoMode.DIRECT, "no O_DIRECT on " + dir);
    return d;
  }
}
