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
    "group", "perm", "layout", "buckets", "xattrs", "lease"})
record Inode(int schema, long id, FileType type, long length, long version, long mtime,
    long atime, String owner, String group, int perm, Layout layout, int buckets,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, byte[]> xattrs,
    @JsonInclude(JsonInclude.Include.NON_NULL) Lease lease) {

  static final int SCHEMA = 1;

  Inode {
    xattrs = xattrs == null || xattrs.isEmpty()
        ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(xattrs));
  }

  static Inode newFile(long id, long now, CreateOptions o, Layout layout, Lease lease) {
    return new Inode(SCHEMA, id, FileType.FILE, 0, 0, now, now, o.owner(), o.group(),
        o.permission(), layout, 0, Map.of(), lease);
  }

  static Inode newDirectory(long id, long now, CreateOptions o, Layout defaultLayout,
      int buckets) {
    return new Inode(SCHEMA, id, FileType.DIRECTORY, 0, 0, now, now, o.owner(), o.group(),
        o.permission(), defaultLayout, buckets, Map.of(), null);
  }

  boolean isDirectory() {
    return type == FileType.DIRECTORY;
  }

  FileStatus status(String path) {
    return new FileStatus(path, id, type, length, version, mtime, atime, owner, group, perm,
        layout, lease == null ? null : lease.client());
  }

  Inode withLength(long newLength) {
    return new Inode(schema, id, type, newLength, version + 1, System.currentTimeMillis(), atime,
        owner, group, perm, layout, buckets, xattrs, lease);
  }

  /** This file with another lease (null: closed). */
  Inode withLease(Lease newLease) {
    return new Inode(schema, id, type, length, version, mtime, atime, owner, group, perm,
        layout, buckets, xattrs, newLease);
  }

  Inode withTimes(long newMtime, long newAtime) {
    return new Inode(schema, id, type, length, version, newMtime, newAtime, owner, group, perm,
        layout, buckets, xattrs, lease);
  }

  Inode withPermission(int newPerm) {
    return new Inode(schema, id, type, length, version, mtime, atime, owner, group, newPerm,
        layout, buckets, xattrs, lease);
  }

  Inode withOwner(String newOwner, String newGroup) {
    return new Inode(schema, id, type, length, version, mtime, atime, newOwner, newGroup, perm,
        layout, buckets, xattrs, lease);
  }

  Inode withLayout(Layout newLayout) {
    return new Inode(schema, id, type, length, version, mtime, atime, owner, group, perm,
        newLayout, buckets, xattrs, lease);
  }

  Inode withXAttrs(Map<String, byte[]> newXAttrs) {
    return new Inode(schema, id, type, length, version, mtime, atime, owner, group, perm,
        layout, buckets, newXAttrs, lease);
  }
}
