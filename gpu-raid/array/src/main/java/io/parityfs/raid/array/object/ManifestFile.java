package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveFile;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.ManifestDecoder;
import io.parityfs.raid.array.format.ManifestEncoder;
import io.parityfs.raid.array.format.ManifestFormat;
import io.parityfs.raid.array.format.ObjectManifest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Stores an {@link ObjectManifest} on a {@link Drive}, crash-safely, under {@link
 * ObjectFiles#manifest}: the record is written to the temp name, fsynced, renamed to the final
 * name and the directory fsynced ({@link ShardWriter#publish}), the same protocol as a shard. A
 * crash leaves no manifest (at most a temp file, which recovery deletes) or a complete, synced
 * one; once {@link #write} returns the version is committed on this drive.
 *
 * <p>Stateless; safe for concurrent use on distinct manifests.
 */
public final class ManifestFile {
  private ManifestFile() {}

  /** Writes {@code manifest} on {@code drive}; durable on return. */
  public static void write(Drive drive, ObjectManifest manifest) throws IOException {
    String name = ObjectFiles.manifest(manifest.objectId(), manifest.version());
    String temp = ObjectFiles.temp(name);
    ByteBuffer bytes = ByteBuffer.wrap(ManifestEncoder.encode(manifest));
    DriveFile file = drive.create(temp);
    boolean synced = false;
    try {
      file.write(bytes, 0);
      file.sync();
      synced = true;
    } finally {
      try {
        file.close();
      } finally {
        if (!synced) {
          drive.delete(temp); // not durable by itself: recovery deletes a temp a crash keeps
        }
      }
    }
    ShardWriter.publish(drive, temp, name);
  }

  /**
   * Reads the manifest of {@code objectId} at {@code version} from {@code drive}.
   *
   * @throws java.nio.file.NoSuchFileException when the drive has no such manifest
   * @throws ArrayException CORRUPT_MANIFEST (also when the record is for another object or
   *     version than its name says) or UNSUPPORTED_VERSION, naming the file
   */
  public static ObjectManifest read(Drive drive, long objectId, long version) throws IOException {
    String name = ObjectFiles.manifest(objectId, version);
    Path path = drive.root().resolve(name);
    byte[] bytes;
    try (DriveFile file = drive.open(name)) {
      long size = file.size();
      if (size > ManifestFormat.MAX_LENGTH) {
        throw new ArrayException(ArrayError.CORRUPT_MANIFEST, path, "object manifest " + path
            + " is " + size + " bytes, more than any manifest (" + ManifestFormat.MAX_LENGTH + ")");
      }
      ByteBuffer buf = ByteBuffer.allocate((int) size);
      file.readFully(buf, 0);
      bytes = buf.array();
    }
    ObjectManifest m = ManifestDecoder.decode(bytes, path);
    if (m.objectId() != objectId || m.version() != version) {
      throw new ArrayException(ArrayError.CORRUPT_MANIFEST, path, "object manifest " + path
          + " holds object " + Long.toHexString(m.objectId()) + " version " + m.version()
          + ", not what its name says");
    }
    return m;
  }
}
