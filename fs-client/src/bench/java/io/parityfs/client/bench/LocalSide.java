package io.parityfs.client.bench;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * Hadoop's {@link RawLocalFileSystem} on a folder of the same disk: no checksum files, no
 * redundancy; {@code hsync} is an fsync of the file.
 */
final class LocalSide implements BenchSide {
  private final RawLocalFileSystem fs = new RawLocalFileSystem();
  private final Path root;

  LocalSide(java.nio.file.Path dir) throws IOException {
    java.nio.file.Files.createDirectories(dir);
    fs.initialize(URI.create("file:///"), new Configuration());
    root = new Path(dir.toAbsolutePath().toUri());
  }

  @Override
  public String name() {
    return "local";
  }

  @Override
  public String describe() {
    return "Hadoop RawLocalFileSystem 3.4.1 on " + root.toUri().getPath()
        + " (ext4, the same disk), hsync (fsync) before close";
  }

  @Override
  public FileSystem fs() {
    return fs;
  }

  @Override
  public Path root() {
    return root;
  }

  @Override
  public boolean hsyncBeforeClose() {
    return true;
  }

  @Override
  public double diskBytesPerDataByte() {
    return 1.0;
  }

  @Override
  public void close() throws IOException {
    fs.close();
  }
}
