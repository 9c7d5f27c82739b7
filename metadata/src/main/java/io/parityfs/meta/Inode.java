package io.parityfs.meta;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * An inode as stored, inline, in its directory entry znode (see {@link InodeCodec} for the JSON).
 * Files and directories share the record; {@code buckets} is 0 for files and the directory's
 * entry-bucket count for directories; {@code layout} is a file's layout or a directory's default.
 */
@JsonPropertyOrder({"schema", "id", "type", "length", "version", "mtime", "atime", "owner",
    "group", "perm", "layout", "buckets", "xattrs", "lease", "generation"})
record Inode(int schema, long id, FileType type, long length, long version, long mtime,
    long atime, String owner, String group, int perm, Layout layout, int buckets,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, byte[]> xattrs,
    @JsonInclude(JsonInclude.Include.NON_NULL) Lease lease, long generation) {

  /** 2: {@code generation} added (a schema-1 record reads as generation 0). */
  static final int SCHEMA = 2;

  Inode {
    xattrs = xattrs == null || xattrs.isEmpty()
        ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(xattrs));
  }

  static Inode newFile(long id, long now, CreateOptions o, Layout layout, Lease lease) {
    return new Inode(SCHEMA, id, FileType.FILE, 0, 0, now, now, o.owner(), o.group(),
        o.permission(), layout, 0, Map.of(), lease, 0);
  }

  static Inode newDirectory(long id, long now, CreateOptions o, Layout defaultLayout,
      int buckets) {
    return new Inode(SCHEMA, id, FileType.DIRECTORY, 0, 0, now, now, o.owner(), o.group(),
        o.permission(), defaultLayout, buckets, Map.of(), null, 0);
  }

  boolean isDirectory() {
    return type == FileType.DIRECTORY;
  }

  FileStatus status(String path) {
    return new FileStatus(path, id, type, length, version, mtime, atime, owner, group, perm,
        layout, lease == null ? null : lease.client(), generation);
  }

  Inode withLength(long newLength) {
    return withLength(newLength, -1);
  }

  /** This file at a new length and version, modified at {@code newMtime} (-1: now). */
  Inode withLength(long newLength, long newMtime) {
    return new Inode(SCHEMA, id, type, newLength, version + 1,
        newMtime == -1 ? System.currentTimeMillis() : newMtime, atime, owner, group, perm, layout,
        buckets, xattrs, lease, generation);
  }

  /** This file with another lease (null: closed). */
  Inode withLease(Lease newLease) {
    return new Inode(SCHEMA, id, type, length, version, mtime, atime, owner, group, perm,
        layout, buckets, xattrs, newLease, generation);
  }

  /** This file at the next writer generation (a new lease epoch: append, lease recovery). */
  Inode withNextGeneration() {
    return new Inode(SCHEMA, id, type, length, version, mtime, atime, owner, group, perm,
        layout, buckets, xattrs, lease, generation + 1);
  }

  Inode withTimes(long newMtime, long newAtime) {
    return new Inode(SCHEMA, id, type, length, version, newMtime, newAtime, owner, group, perm,
        layout, buckets, xattrs, lease, generation);
  }

  Inode withPermission(int newPerm) {
    return new Inode(SCHEMA, id, type, length, version, mtime, atime, owner, group, newPerm,
        layout, buckets, xattrs, lease, generation);
  }

  Inode withOwner(String newOwner, String newGroup) {
    return new Inode(SCHEMA, id, type, length, version, mtime, atime, newOwner, newGroup, perm,
        layout, buckets, xattrs, lease, generation);
  }

  Inode withLayout(Layout newLayout) {
    return new Inode(SCHEMA, id, type, length, version, mtime, atime, owner, group, perm,
        newLayout, buckets, xattrs, lease, generation);
  }

  Inode withXAttrs(Map<String, byte[]> newXAttrs) {
    return new Inode(SCHEMA, id, type, length, version, mtime, atime, owner, group, perm,
        layout, buckets, newXAttrs, lease, generation);
  }
}
