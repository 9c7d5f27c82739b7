package io.parityfs.raid.array.drive;

import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DriveLabel;
import io.parityfs.raid.array.format.LabelDecoder;
import io.parityfs.raid.array.format.LabelEncoder;
import io.parityfs.raid.array.format.LabelFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Stores a {@link DriveLabel} at the root of a drive directory, crash-safely: the new label is
 * written to {@value LabelFormat#TEMP_NAME}, fsynced, renamed atomically over {@value
 * LabelFormat#FILE_NAME}, and the directory is fsynced so the rename itself is durable. A crash at
 * any point leaves either the old label or the new one, never a torn one; at worst a temp file is
 * left behind, which {@link #removeLeftoverTemp} deletes.
 */
public final class LabelFile {
  private static final System.Logger LOG = System.getLogger(LabelFile.class.getName());

  /** Larger than any label version we expect; a bigger file is not a label, so not read whole. */
  private static final long MAX_READ = 64 << 10;

  private LabelFile() {}

  /** The label file of {@code drive}. */
  public static Path of(Path drive) {
    return drive.resolve(LabelFormat.FILE_NAME);
  }

  /** Whether {@code drive} has a label file (valid or not). */
  public static boolean exists(Path drive) {
    return Files.exists(of(drive));
  }

  /**
   * The label of {@code drive}.
   *
   * @throws ArrayException NO_LABEL when the directory or its label file is absent;
   *     CORRUPT_LABEL or UNSUPPORTED_VERSION when the file is not a readable label
   * @throws IOException when the file cannot be read
   */
  public static DriveLabel read(Path drive) throws IOException {
    Path file = of(drive);
    if (!Files.isDirectory(drive)) {
      throw new ArrayException(
          ArrayError.NO_LABEL, drive, "drive " + drive + " does not exist or is not a directory");
    }
    byte[] bytes;
    try {
      long size = Files.size(file);
      if (size > MAX_READ) {
        throw new ArrayException(
            ArrayError.CORRUPT_LABEL,
            file,
            "drive label " + file + " is " + size + " bytes, not a label (" + LabelFormat.LENGTH
                + ")");
      }
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new ArrayException(
          ArrayError.NO_LABEL, drive, "drive " + drive + " has no label (" + file + ")");
    }
    return LabelDecoder.decode(bytes, file);
  }

  /** Writes {@code label} to {@code drive}, replacing any label there; durable on return. */
  public static void write(Path drive, DriveLabel label) throws IOException {
    Path temp = drive.resolve(LabelFormat.TEMP_NAME);
    ByteBuffer bytes = ByteBuffer.wrap(LabelEncoder.encode(label));
    try (FileChannel ch =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      while (bytes.hasRemaining()) {
        ch.write(bytes);
      }
      ch.force(true);
    }
    // On POSIX file systems an atomic move is rename(2), which replaces the old label.
    Files.move(temp, of(drive), StandardCopyOption.ATOMIC_MOVE);
    try (FileChannel dir = FileChannel.open(drive, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  /**
   * Deletes a temp file a crash left in {@code drive} during a label write. The label file itself
   * is untouched: the rename never happened, so it still holds the previous label (or none).
   */
  public static void removeLeftoverTemp(Path drive) throws IOException {
    Path temp = drive.resolve(LabelFormat.TEMP_NAME);
    if (Files.deleteIfExists(temp)) {
      LOG.log(
          System.Logger.Level.INFO,
          "drive {0}: removed {1} left by an interrupted label write",
          drive,
          LabelFormat.TEMP_NAME);
    }
  }
}
