package io.parityfs.hadoop;

import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.XAttrMode;
import java.io.IOException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.HadoopIllegalArgumentException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.XAttrSetFlag;

/**
 * The extended attributes of {@link PfsFileSystem} with HDFS's rules: {@link XAttrSetFlag}s
 * to the namespace's {@link XAttrMode}, and for a missing attribute of a path that exists
 * HDFS's plain IOException and message (a missing path stays a FileNotFoundException).
 * Stateless: each call gets the file system's namespace and the namespace path of its Hadoop
 * path (which the messages name).
 */
final class HadoopXAttrs {
  private HadoopXAttrs() {}

  /** The mode of {@code setXAttr}'s flags; at least one of CREATE and REPLACE is needed. */
  static XAttrMode mode(String name, EnumSet<XAttrSetFlag> flag) {
    boolean create = flag.contains(XAttrSetFlag.CREATE);
    boolean replace = flag.contains(XAttrSetFlag.REPLACE);
    if (create && replace) {
      return XAttrMode.UPSERT;
    } else if (create) {
      return XAttrMode.CREATE;
    } else if (replace) {
      return XAttrMode.REPLACE;
    }
    throw new HadoopIllegalArgumentException("setXAttr of " + name
        + ": give at least one of CREATE and REPLACE");
  }

  /** {@link PfsFileSystem#setXAttr}, {@code p} the namespace path of {@code path}. */
  static void set(Namespace ns, String p, Path path, String name, byte[] value, XAttrMode mode)
      throws IOException {
    try {
      ns.setXAttr(p, name, value == null ? new byte[0] : value, mode);
    } catch (NamespaceException e) {
      if (e.status() == NamespaceStatus.NOT_FOUND && existsQuietly(ns, p)) {
        IOException io = new IOException("XAttr: " + name + " does not exist, the REPLACE flag"
            + " must not be specified (" + path + ")");
        io.initCause(e);
        throw io;
      }
      throw NamespaceErrors.toHadoop(e);
    }
  }

  /** {@link PfsFileSystem#removeXAttr}, {@code p} the namespace path of {@code path}. */
  static void remove(Namespace ns, String p, Path path, String name) throws IOException {
    try {
      ns.removeXAttr(p, name);
    } catch (NamespaceException e) {
      if (e.status() == NamespaceStatus.NOT_FOUND && existsQuietly(ns, p)) {
        IOException io = new IOException("No matching attributes found for remove operation: "
            + name + " on " + path);
        io.initCause(e);
        throw io;
      }
      throw NamespaceErrors.toHadoop(e);
    }
  }

  /**
   * The attributes of {@code all} named in {@code names}, in that order; as HDFS, an
   * IOException if any of them is missing.
   */
  static Map<String, byte[]> select(Map<String, byte[]> all, List<String> names, Path path)
      throws IOException {
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (String n : names) {
      byte[] v = all.get(n);
      if (v == null) {
        throw new IOException("At least one of the attributes provided was not found: " + n
            + " on " + path);
      }
      out.put(n, v);
    }
    return out;
  }

  private static boolean existsQuietly(Namespace ns, String p) {
    try {
      return ns.exists(p);
    } catch (NamespaceException e) {
      return false;
    }
  }
}
