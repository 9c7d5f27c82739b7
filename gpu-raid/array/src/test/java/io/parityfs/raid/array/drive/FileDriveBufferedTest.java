package io.parityfs.raid.array.drive;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FileDriveBufferedTest extends DriveContractTest {
  @Override
  Drive newDrive(Path dir) throws IOException {
    return FileDrive.open(dir, Drive.IoMode.BUFFERED);
  }

  @Test
  void reportsBufferedMode() {
    assertEquals(Drive.IoMode.BUFFERED, drive.ioMode());
  }
}
