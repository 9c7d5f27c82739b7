package io.parityfs.fuse;

/**
 * What {@code getattr} answers about one path: a {@code struct stat} without the fields FUSE
 * fills itself.
 *
 * @param inode the inode id (st_ino; the mount passes it through, {@code use_ino})
 * @param mode file type and permission bits, as {@code st_mode} ({@link #S_IFREG}, {@link
 *     #S_IFDIR} or {@link #S_IFLNK} | 07777 bits)
 * @param nlink 1 for files; 1 for directories too (no subdirectory count is kept, and 1 tells
 *     find and fts not to rely on it)
 * @param uid owner uid (the namespace stores names; see {@link IdentityMap})
 * @param gid group gid
 * @param size bytes; for a file this mount writes, its length with the writes not yet committed
 * @param blockSize the preferred I/O size (st_blksize)
 * @param accessMillis st_atime, milliseconds since the epoch
 * @param modificationMillis st_mtime, milliseconds since the epoch (also st_ctime: no change
 *     time is stored)
 * @param holeBytes bytes of {@code size} in the file's holes (never stored, read as zeros), which
 *     take no blocks
 */
public record FileAttributes(long inode, int mode, int nlink, long uid, long gid, long size,
    int blockSize, long accessMillis, long modificationMillis, long holeBytes) {
  public static final int S_IFDIR = 0040000;
  public static final int S_IFREG = 0100000;
  public static final int S_IFLNK = 0120000;

  /** Attributes of a file without holes. */
  public FileAttributes(long inode, int mode, int nlink, long uid, long gid, long size,
      int blockSize, long accessMillis, long modificationMillis) {
    this(inode, mode, nlink, uid, gid, size, blockSize, accessMillis, modificationMillis, 0);
  }

  public boolean isDirectory() {
    return (mode & 0170000) == S_IFDIR;
  }

  /** 512-byte blocks, as st_blocks (du counts them): holes take none. */
  public long blocks() {
    return (Math.max(0, size - holeBytes) + 511) / 512;
  }
}
