package io.parityfs.meta;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An inode as stored, inline, in its directory entry znode (see {@link InodeCodec} for the JSON).
 * Files and directories share the record; {@code buckets} is 0 for files and the directory's
 * entry-bucket count for directories; {@code layout} is a file's layout or a directory's default.
 */
@JsonPropertyOrder({"schema", "id", "type", "length", "version", "mtime", "atime", "owner",
    "group", "perm", "layout", "buckets", "xattrs", "lease", "generation", "repairs", "holes",
    "target"})
record Inode(int schema, long id, FileType type, long length, long version, long mtime,
    long atime, String owner, String group, int perm, Layout layout, int buckets,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, byte[]> xattrs,
    @JsonInclude(JsonInclude.Include.NON_NULL) Lease lease, long generation,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Repairs.Range> repairs,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Holes.Range> holes,
    @JsonInclude(JsonInclude.Include.NON_NULL) String target) {

  /**
   * 2: {@code generation} added (a schema-1 record reads as generation 0). 3: {@code repairs}
   * (the file's repair record, {@link Repairs}); written only by a record that has one, so that
   * code which would not know to avoid its stale members refuses it instead of misreading. 4:
   * {@code holes} (a sparse file's groups never stored, {@link Holes}), written only by a record
   * that has some, so that code which would take them for lost chunks refuses the file. 5:
   * {@code target} (a symbolic link, {@link FileType#SYMLINK}), written only by a link's record,
   * so that code which would take a link for an empty file refuses it.
   */
  static final int SCHEMA = 5;
  /** The schema of a symbolic link's record. */
  static final int SCHEMA_LINK = 5;
  /** The schema of a record with holes. */
  static final int SCHEMA_HOLES = 4;
  /** The schema of a record with a repair record and no holes. */
  static final int SCHEMA_REPAIRS = 3;
  /** The schema of a record without a repair record. */
  static final int SCHEMA_PLAIN = 2;

  Inode {
    xattrs = xattrs == null || xattrs.isEmpty()
        ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(xattrs));
    repairs = repairs == null ? List.of() : new Repairs(repairs).ranges();
    holes = holes == null ? List.of() : new Holes(holes).ranges();
    if ((type == FileType.SYMLINK) != (target != null)) {
      throw new IllegalArgumentException("a symbolic link has a target and nothing else has one: "
          + type + " with target " + target);
    }
  }

  /** The schema a record with {@code repairs}, {@code holes} and {@code target} is written in. */
  private static int schemaOf(List<Repairs.Range> repairs, List<Holes.Range> holes,
      String target) {
    return target != null ? SCHEMA_LINK : !holes.isEmpty() ? SCHEMA_HOLES
        : repairs.isEmpty() ? SCHEMA_PLAIN : SCHEMA_REPAIRS;
  }

  static Inode newFile(long id, long now, CreateOptions o, Layout layout, Lease lease) {
    return new Inode(SCHEMA_PLAIN, id, FileType.FILE, 0, 0, now, now, o.owner(), o.group(),
        o.permission(), layout, 0, Map.of(), lease, 0, List.of(), List.of(), null);
  }

  static Inode newDirectory(long id, long now, CreateOptions o, Layout defaultLayout,
      int buckets) {
    return new Inode(SCHEMA_PLAIN, id, FileType.DIRECTORY, 0, 0, now, now, o.owner(), o.group(),
        o.permission(), defaultLayout, buckets, Map.of(), null, 0, List.of(), List.of(), null);
  }

  /**
   * A symbolic link from {@code o}'s caller to {@code target} (kept as given, resolved by
   * whoever follows it): mode 0777 as on Linux, length the target's UTF-8 bytes; the layout is
   * the parent's default (a link has no chunks, and the record's reader requires one).
   */
  static Inode newSymlink(long id, long now, CreateOptions o, Layout parentLayout,
      String target) {
    return new Inode(SCHEMA_LINK, id, FileType.SYMLINK,
        target.getBytes(java.nio.charset.StandardCharsets.UTF_8).length, 0, now, now, o.owner(),
        o.group(), 0777, parentLayout, 0, Map.of(), null, 0, List.of(), List.of(), target);
  }

  boolean isDirectory() {
    return type == FileType.DIRECTORY;
  }

  /** Whether this is a symbolic link (no chunks, no lease: its {@code target} is its content). */
  boolean isSymlink() {
    return type == FileType.SYMLINK;
  }

  FileStatus status(String path) {
    return new FileStatus(path, id, type, length, version, mtime, atime, owner, group, perm,
        layout, lease == null ? null : lease.client(), generation, new Repairs(repairs),
        new Holes(holes), target);
  }

  Inode withLength(long newLength) {
    return withLength(newLength, -1);
  }

  /** This file at a new length and version, modified at {@code newMtime} (-1: now). */
  Inode withLength(long newLength, long newMtime) {
    return new Inode(schemaOf(repairs, holes, target), id, type, newLength, version + 1,
        newMtime == -1 ? System.currentTimeMillis() : newMtime, atime, owner, group, perm, layout,
        buckets, xattrs, lease, generation, repairs, holes, target);
  }

  /** This file with another lease (null: closed). */
  Inode withLease(Lease newLease) {
    return new Inode(schemaOf(repairs, holes, target), id, type, length, version, mtime, atime, owner, group, perm,
        layout, buckets, xattrs, newLease, generation, repairs, holes, target);
  }

  /** This file at the next writer generation (a new lease epoch: append, lease recovery). */
  Inode withNextGeneration() {
    return new Inode(schemaOf(repairs, holes, target), id, type, length, version, mtime, atime, owner, group, perm,
        layout, buckets, xattrs, lease, generation + 1, repairs, holes, target);
  }

  /** This file with another repair record (its schema follows: {@link #SCHEMA} with one). */
  Inode withRepairs(Repairs newRepairs) {
    List<Repairs.Range> r = newRepairs.ranges();
    return new Inode(schemaOf(r, holes, target), id, type, length, version, mtime, atime, owner, group, perm,
        layout, buckets, xattrs, lease, generation, r, holes, target);
  }

  /** This file with another hole record (its schema follows: {@link #SCHEMA} with one). */
  Inode withHoles(Holes newHoles) {
    List<Holes.Range> h = newHoles.ranges();
    return new Inode(schemaOf(repairs, h, target), id, type, length, version, mtime, atime, owner, group,
        perm, layout, buckets, xattrs, lease, generation, repairs, h, target);
  }

  Inode withTimes(long newMtime, long newAtime) {
    return new Inode(schemaOf(repairs, holes, target), id, type, length, version, newMtime, newAtime, owner, group, perm,
        layout, buckets, xattrs, lease, generation, repairs, holes, target);
  }

  Inode withPermission(int newPerm) {
    return new Inode(schemaOf(repairs, holes, target), id, type, length, version, mtime, atime, owner, group, newPerm,
        layout, buckets, xattrs, lease, generation, repairs, holes, target);
  }

  Inode withOwner(String newOwner, String newGroup) {
    return new Inode(schemaOf(repairs, holes, target), id, type, length, version, mtime, atime, newOwner, newGroup, perm,
        layout, buckets, xattrs, lease, generation, repairs, holes, target);
  }

  Inode withLayout(Layout newLayout) {
    return new Inode(schemaOf(repairs, holes, target), id, type, length, version, mtime, atime, owner, group, perm,
        newLayout, buckets, xattrs, lease, generation, repairs, holes, target);
  }

  Inode withXAttrs(Map<String, byte[]> newXAttrs) {
    return new Inode(schemaOf(repairs, holes, target), id, type, length, version, mtime, atime, owner, group, perm,
        layout, buckets, newXAttrs, lease, generation, repairs, holes, target);
  }
}
