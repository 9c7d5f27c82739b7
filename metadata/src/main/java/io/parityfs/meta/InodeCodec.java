package io.parityfs.meta;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The bytes of an {@link Inode} in a directory-entry znode: UTF-8 JSON, fields in this order,
 * {@code schema} 2, 3 or 4 (1 is read too, as writer generation 0; a larger schema is refused as
 * CORRUPT rather than misread; unknown fields are ignored so that a later minor addition stays
 * readable). A record is written as schema 2, or 3 when it has a repair record ({@code
 * "repairs":[{"target":"t2","from":0,"to":11}]}, {@link Repairs}): code that predates repair
 * records refuses such a file rather than read its stale members; and as schema 4 when it has
 * holes ({@code "holes":[{"from":12,"to":6399}]}, {@link Holes}), which older code would take for
 * lost chunks. Example (a file):
 *
 * <pre>
 * {"schema":2,"id":4097,"type":"FILE","length":1048576,"version":3,"mtime":1767225600000,
 *  "atime":1767225600000,"owner":"alice","group":"staff","perm":420,
 *  "layout":{"chunkSize":8388608,"stripeCount":4,"targets":["t1","t2","t3","t4"],
 *            "protection":"raid6:4+2","across":"none","pool":"default"},
 *  "buckets":0,"xattrs":{"user.tag":"dmFsdWU="},"generation":2}
 * </pre>
 *
 * {@code generation} is the file's writer generation: 0 at create, +1 at every append and lease
 * recovery; every chunk WRITE and DELETE of the file carries it, and the storage targets refuse
 * older ones (see docs/protocol.md, "Writer fencing").
 *
 * Directories have {@code "type":"DIRECTORY"}, length and version 0, their default layout in
 * {@code layout} and their entry-bucket count in {@code buckets}. xattr values are base64.
 * Layouts are read and written by {@link LayoutJson} (older records without {@code pool} or
 * {@code across} still read).
 * An encoded record is at most {@link #MAX_BYTES}, so a page of {@link #READ_BATCH} records
 * fits well inside ZooKeeper's default 1 MiB {@code jute.maxbuffer}.
 */
final class InodeCodec {
  static final int MAX_BYTES = 24 * 1024;
  static final int READ_BATCH = 32;
  /** Extended attributes: HDFS's namespaces, at most 32 per inode, 16 KiB names + values. */
  static final int MAX_XATTRS = 32;
  static final int MAX_XATTR_BYTES = 16 * 1024;

  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
      .registerModule(LayoutJson.module());

  private InodeCodec() {}

  static byte[] encode(Inode inode) {
    try {
      return JSON.writeValueAsBytes(inode);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e); // records of plain values always serialise
    }
  }

  static Inode decode(byte[] data, String path) throws NamespaceException {
    Inode inode;
    try {
      inode = JSON.readValue(data, Inode.class);
    } catch (IOException | RuntimeException e) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, path,
          "undecodable inode record: " + e.getMessage(), e);
    }
    if (inode.schema() < 1 || inode.schema() > Inode.SCHEMA || inode.type() == null
        || inode.layout() == null) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, path,
          "inode record of schema " + inode.schema() + " (this code reads " + Inode.SCHEMA + ")");
    }
    return inode;
  }
}
