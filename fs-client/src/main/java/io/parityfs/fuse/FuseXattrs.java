package io.parityfs.fuse;

import io.parityfs.meta.Layout;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.XAttrMode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The extended attributes of the mount, for {@link PfsFuseOperations}: the user attributes the
 * namespace stores, the read-only virtual {@value PfsFuseOperations#LAYOUT_XATTR} (a file's or
 * a directory's default layout, as text), xattr(7)'s flags and FUSE's size-probe convention (a
 * buffer of no space asks for the size). {@code parityfs.*} names are the file system's (EPERM
 * to set or remove), {@code system.*} ones (POSIX ACLs) and file capabilities ({@value
 * PfsFuseOperations#CAPABILITY_XATTR}) are not supported (EOPNOTSUPP). Each
 * method is the body of one FUSE operation: it returns a size, 0 or a negative errno, and
 * throws what the caller maps to an errno ({@link Errno#of}). Stateless: each call gets the
 * namespace acting for its requester.
 */
final class FuseXattrs {
  private static final int XATTR_CREATE = 1;
  private static final int XATTR_REPLACE = 2;

  private FuseXattrs() {}

  /** {@link PfsFuseOperations#getxattr}. */
  static int get(Namespace ns, String path, String name, ByteBuffer dst) throws IOException {
    byte[] v;
    if (name.equals(PfsFuseOperations.LAYOUT_XATTR)) {
      v = layoutText(ns.getStatus(path).layout()).getBytes(StandardCharsets.UTF_8);
    } else {
      v = ns.getXAttrs(path).get(name);
      if (v == null) {
        return -Errno.ENODATA;
      }
    }
    if (dst.remaining() == 0) {
      return v.length;
    }
    if (v.length > dst.remaining()) {
      return -Errno.ERANGE;
    }
    dst.put(v);
    return v.length;
  }

  /** {@link PfsFuseOperations#setxattr}. */
  static int set(Namespace ns, String path, String name, byte[] value, int flags)
      throws IOException {
    if (name.startsWith("parityfs.")) {
      return -Errno.EPERM;
    }
    if (name.startsWith("system.") || name.equals(PfsFuseOperations.CAPABILITY_XATTR)) {
      return -Errno.EOPNOTSUPP;
    }
    XAttrMode mode = (flags & XATTR_CREATE) != 0 ? XAttrMode.CREATE
        : (flags & XATTR_REPLACE) != 0 ? XAttrMode.REPLACE : XAttrMode.UPSERT;
    try {
      ns.setXAttr(path, name, value, mode);
    } catch (NamespaceException e) {
      if (e.status() == NamespaceStatus.NOT_FOUND && ns.exists(path)) {
        return -Errno.ENODATA;
      }
      throw e;
    } catch (IllegalArgumentException e) {
      return -Errno.EOPNOTSUPP;
    }
    return 0;
  }

  /** {@link PfsFuseOperations#listxattr}. */
  static int list(Namespace ns, String path, ByteBuffer dst) throws IOException {
    ByteArrayOutputStream names = new ByteArrayOutputStream();
    for (String n : ns.getXAttrs(path).keySet()) {
      names.writeBytes(n.getBytes(StandardCharsets.UTF_8));
      names.write(0);
    }
    if (dst.remaining() == 0) {
      return names.size();
    }
    if (names.size() > dst.remaining()) {
      return -Errno.ERANGE;
    }
    dst.put(names.toByteArray());
    return names.size();
  }

  /** {@link PfsFuseOperations#removexattr}. */
  static int remove(Namespace ns, String path, String name) throws IOException {
    if (name.startsWith("parityfs.")) {
      return -Errno.EPERM;
    }
    try {
      ns.removeXAttr(path, name);
    } catch (NamespaceException e) {
      if (e.status() == NamespaceStatus.NOT_FOUND && ns.exists(path)) {
        return -Errno.ENODATA;
      }
      throw e;
    } catch (IllegalArgumentException e) {
      return -Errno.EOPNOTSUPP;
    }
    return 0;
  }

  /** The text of {@value PfsFuseOperations#LAYOUT_XATTR}. */
  static String layoutText(Layout l) {
    List<String> parts = new ArrayList<>();
    parts.add("chunk_size=" + l.chunkSize());
    parts.add("stripe_count=" + l.stripeCount());
    parts.add("protection=" + l.protection());
    parts.add("pool=" + l.pool());
    parts.add("across=" + l.across());
    parts.add("targets=" + String.join(",", l.targets()));
    return String.join(" ", parts);
  }
}
