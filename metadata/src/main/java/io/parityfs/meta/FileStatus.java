package io.parityfs.meta;

/**
 * What a stat or a listing returns about one inode, read in one ZooKeeper read (the attributes
 * live in the directory entry).
 *
 * @param path absolute, normalised path
 * @param id inode id; for files the storage-side file id (&lt; 2^40); never reused
 * @param type file or directory
 * @param length file length in bytes (0 for directories)
 * @param version file content version: 0 at create, +1 on each length update (0 for directories)
 * @param modificationTime milliseconds since the epoch
 * @param accessTime milliseconds since the epoch
 * @param owner owner name
 * @param group group name
 * @param permission POSIX mode bits, 0..07777
 * @param layout a file's layout; a directory's default layout for new children
 * @param writer the client holding the file's write lease, or null when the file is closed
 *     (its length is then final until the next append)
 * @param generation the file's writer generation (lease epoch): 0 at create, +1 at every append
 *     and lease recovery; every chunk write and delete of the file carries it, and the storage
 *     targets refuse an older one (fencing). 0 for directories
 * @param repairs the file's repair record: members a write could not store, which readers
 *     must not use ({@link Repairs}); empty for directories and healthy files
 * @param holes a sparse file's groups never stored, which read as zeros ({@link Holes}); empty
 *     for directories and dense files
 * @param linkTarget a symbolic link's target, as it was given (relative to the link's directory
 *     unless it starts with {@code /}); null for everything else. A link's length is its target's
 *     UTF-8 bytes, its permission 0777
 */
public record FileStatus(String path, long id, FileType type, long length, long version,
    long modificationTime, long accessTime, String owner, String group, int permission,
    Layout layout, String writer, long generation, Repairs repairs, Holes holes,
    String linkTarget) {

  public FileStatus {
    repairs = repairs == null ? Repairs.NONE : repairs;
    holes = holes == null ? Holes.NONE : holes;
  }

  /** A status that is not a symbolic link's. */
  public FileStatus(String path, long id, FileType type, long length, long version,
      long modificationTime, long accessTime, String owner, String group, int permission,
      Layout layout, String writer, long generation, Repairs repairs, Holes holes) {
    this(path, id, type, length, version, modificationTime, accessTime, owner, group, permission,
        layout, writer, generation, repairs, holes, null);
  }

  /** Whether this is a symbolic link's status ({@link #linkTarget} says where it points). */
  public boolean isSymlink() {
    return type == FileType.SYMLINK;
  }

  /** A status without holes. */
  public FileStatus(String path, long id, FileType type, long length, long version,
      long modificationTime, long accessTime, String owner, String group, int permission,
      Layout layout, String writer, long generation, Repairs repairs) {
    this(path, id, type, length, version, modificationTime, accessTime, owner, group, permission,
        layout, writer, generation, repairs, Holes.NONE);
  }

  /** A status without a repair record. */
  public FileStatus(String path, long id, FileType type, long length, long version,
      long modificationTime, long accessTime, String owner, String group, int permission,
      Layout layout, String writer, long generation) {
    this(path, id, type, length, version, modificationTime, accessTime, owner, group, permission,
        layout, writer, generation, Repairs.NONE);
  }

  /** A status at generation 0. */
  public FileStatus(String path, long id, FileType type, long length, long version,
      long modificationTime, long accessTime, String owner, String group, int permission,
      Layout layout, String writer) {
    this(path, id, type, length, version, modificationTime, accessTime, owner, group, permission,
        layout, writer, 0);
  }

  /** This status with {@code r} as its repair record (what a mover reads around). */
  public FileStatus withRepairs(Repairs r) {
    return new FileStatus(path, id, type, length, version, modificationTime, accessTime, owner,
        group, permission, layout, writer, generation, r, holes, linkTarget);
  }

  /** This status with layout {@code l} (what a mover writes to before the switch). */
  public FileStatus withLayout(Layout l) {
    return new FileStatus(path, id, type, length, version, modificationTime, accessTime, owner,
        group, permission, l, writer, generation, repairs, holes, linkTarget);
  }

  /**
   * Bytes of the file that are stored: its length less its holes (each hole group's chunks as
   * far as the length reaches); what {@code du} and a mount's block count show.
   */
  public long storedBytes() {
    if (holes.isEmpty() || layout == null) {
      return length;
    }
    long chunk = layout.chunkSize();
    long perGroup = (long) ChunkMap.of(layout).groupSize() * chunk;
    long hole = 0;
    for (Holes.Range r : holes.ranges()) {
      long from = r.from() * perGroup;
      long to = Math.min(length, (r.to() + 1) * perGroup);
      hole += Math.max(0, to - from);
    }
    return Math.max(0, length - hole);
  }

  /** Whether the file is open for writing (a lease is held or awaits recovery). */
  public boolean isOpenForWrite() {
    return writer != null;
  }

  public boolean isDirectory() {
    return type == FileType.DIRECTORY;
  }

  public boolean isFile() {
    return type == FileType.FILE;
  }
}
