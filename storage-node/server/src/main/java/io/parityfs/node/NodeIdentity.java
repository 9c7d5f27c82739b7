package io.parityfs.node;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The node id and where it is kept. A node id is a UUID made at the first start and written to
 * the configured id file ({@code node.idFile}) and, as {@value #DRIVE_FILE}, at the root of every
 * drive of every target, so a node whose system disk was reinstalled comes back as the same node
 * from its drives alone.
 *
 * <p>Format (text, UTF-8, a {@link Properties} file):
 *
 * <pre>
 * # ParityFS storage node identity. Written once; do not edit or copy to another node.
 * format=1
 * nodeId=3f1c2a9e-5b7d-4c1e-9a0b-6d2e8f4a1c3b
 * </pre>
 *
 * A file of another format is refused. At start ({@link #resolve}): the id file and every
 * candidate drive's file are read; all ids found must agree (else the node refuses to start,
 * naming each file and its id: the drives came from another node, and serving them under this
 * node's id would confuse the cluster's target registry); none found: a new id. Files are
 * written crash-safely (temp file, fsync, rename, directory fsync). The array tolerates the extra
 * file on its drives (names it does not own are ignored).
 */
final class NodeIdentity {
  static final String DRIVE_FILE = "parityfs.node";
  static final int FORMAT = 1;

  private NodeIdentity() {}

  /**
   * The node id recorded in {@code idFile} or on {@code drives} (each a drive directory), or a new
   * one if none is.
   *
   * @throws IOException naming the files when they disagree, or a file is unreadable or of an
   *     unknown format
   */
  static UUID resolve(Path idFile, Iterable<Path> drives) throws IOException {
    Map<String, UUID> found = new TreeMap<>();
    read(idFile).ifPresent(id -> found.put(idFile.toString(), id));
    for (Path d : drives) {
      Path f = d.resolve(DRIVE_FILE);
      read(f).ifPresent(id -> found.put(f.toString(), id));
    }
    if (found.values().stream().distinct().count() > 1) {
      StringBuilder sb = new StringBuilder("node ids disagree (drives of another node?):");
      found.forEach((f, id) -> sb.append(' ').append(f).append('=').append(id).append(';'));
      throw new IOException(sb + " remove the files that are wrong, or start the node those"
          + " drives belong to");
    }
    return found.values().stream().findFirst().orElseGet(UUID::randomUUID);
  }

  /** Writes {@code id} to {@code file} unless it already holds it. */
  static void write(Path file, UUID id) throws IOException {
    if (read(file).filter(id::equals).isPresent()) {
      return;
    }
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = dir.resolve(file.getFileName() + ".tmp");
    try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
      w.write("# ParityFS storage node identity. Written once; do not edit or copy to another"
          + " node.\nformat=" + FORMAT + "\nnodeId=" + id + "\n");
    }
    try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      c.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel c = FileChannel.open(dir, StandardOpenOption.READ)) {
      c.force(true);
    } catch (IOException ignored) {
      // some file systems refuse to open a directory; the rename is still in place
    }
  }

  /** The id in {@code file}, empty when there is no such file. */
  static Optional<UUID> read(Path file) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    if (!String.valueOf(FORMAT).equals(p.getProperty("format"))) {
      throw new IOException(file + ": node identity format (" + p.getProperty("format")
          + ") is not " + FORMAT);
    }
    try {
      return Optional.of(UUID.fromString(String.valueOf(p.getProperty("nodeId"))));
    } catch (IllegalArgumentException e) {
      throw new IOException(file + ": nodeId (" + p.getProperty("nodeId") + ") is not a UUID");
    }
  }
}
