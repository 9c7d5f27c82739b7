package io.parityfs.hadoop;

import io.parityfs.meta.Across;
import io.parityfs.meta.FileStatus;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * A Hadoop file status with an etag: {@code <id>-<version>} in hex for a file (new on every
 * create, overwrite, hflush and close; kept by rename, which moves the inode unchanged), none
 * for a directory. Block size = the file's chunk size; replication N for {@code mirror:N}
 * across nodes, else 1 (parity inside each storage node, and across nodes for {@code ec:K+M},
 * which {@link #isErasureCoded()} reports).
 */
final class PfsFileStatus extends org.apache.hadoop.fs.FileStatus implements EtagSource {
  private static final long serialVersionUID = 1L;
  private final String etag;

  PfsFileStatus(FileStatus f, Path qualified) {
    super(f.isDirectory() ? 0 : f.length(), f.isDirectory(), replication(f.layout().across()),
        f.layout().chunkSize(), f.modificationTime(), f.accessTime(),
        new FsPermission((short) f.permission()), f.owner(), f.group(),
        f.isSymlink() ? linkPath(f.linkTarget()) : null, qualified, false, false,
        f.layout().across().isErasureCoded());
    this.etag = etagOf(f);
  }

  /**
   * A link's target as a Hadoop path, as given: a qualified one ({@code pfs://c/a}, {@code
   * file:/a}, {@code //c/a}) parsed as a URI, a plain one (relative stays relative) as a path.
   */
  static Path linkPath(String target) {
    return io.parityfs.client.Links.isQualified(target) ? new Path(target)
        : new Path(null, null, target);
  }

  private static short replication(Across across) {
    return (short) (across.kind() == Across.Kind.MIRROR ? across.width() : 1);
  }

  static String etagOf(FileStatus f) {
    return f.isDirectory() ? null : Long.toHexString(f.id()) + "-" + Long.toHexString(f.version());
  }

  @Override
  public String getEtag() {
    return etag;
  }

  @Override
  public boolean equals(Object o) {
    return super.equals(o); // by path, as every FileStatus
  }

  @Override
  public int hashCode() {
    return super.hashCode();
  }
}
