package io.parityfs.meta;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The extended attributes of one {@link Namespace} view: {@link Namespace#getXAttrs}, {@link
 * Namespace#getXAttr}, {@link Namespace#setXAttr}, {@link Namespace#removeXAttr}, with HDFS's
 * rules for who sees and sets which namespace. Stored in the inode record ({@link InodeCodec}'s
 * limits). Thread-safe.
 */
final class XAttrs {
  private static final Set<String> XATTR_NAMESPACES =
      Set.of("user.", "trusted.", "security.", "system.", "raw.");

  private final NamespaceCore core;
  private final EntryWalker walker;
  private final AccessChecker access;
  private final Updates updates;

  XAttrs(NamespaceCore core, EntryWalker walker, Updates updates) {
    this.core = core;
    this.walker = walker;
    this.access = walker.access();
    this.updates = updates;
  }

  /** {@link Namespace#getXAttrs}. */
  Map<String, byte[]> getXAttrs(String path) throws NamespaceException {
    List<String> comps = Names.split(path);
    Map<String, byte[]> out = new LinkedHashMap<>();
    Entry e = walker.findChecked(comps, Names.join(comps), AccessChecker.READ);
    e.inode().xattrs().forEach((k, v) -> {
      if (visible(k)) {
        out.put(k, v.clone());
      }
    });
    return out;
  }

  private boolean visible(String xattr) {
    return access.isSuperuser() || !core.config.permissions() || xattr.startsWith("user.")
        || xattr.startsWith("security.");
  }


  /** {@link Namespace#getXAttr}. */
  byte[] getXAttr(String path, String name) throws NamespaceException {
    checkXAttrName(name);
    byte[] v = getXAttrs(path).get(name);
    if (v == null) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, path, "no xattr " + name);
    }
    return v;
  }

  /** {@link Namespace#setXAttr}. */
  FileStatus setXAttr(String path, String name, byte[] value, XAttrMode mode)
      throws NamespaceException {
    checkXAttrName(name);
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(mode, "mode");
    byte[] copy = value.clone();
    return updates.update(path, e -> xattrAccess(e, name), i -> {
      boolean present = i.xattrs().containsKey(name);
      if (present && mode == XAttrMode.CREATE) {
        throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, path, "xattr " + name
            + " exists");
      }
      if (!present && mode == XAttrMode.REPLACE) {
        throw new NamespaceException(NamespaceStatus.NOT_FOUND, path, "no xattr " + name);
      }
      Map<String, byte[]> m = new TreeMap<>(i.xattrs());
      m.put(name, copy);
      checkXAttrSize(m, path);
      return i.withXAttrs(m);
    });
  }

  /** {@link Namespace#removeXAttr}. */
  FileStatus removeXAttr(String path, String name) throws NamespaceException {
    checkXAttrName(name);
    return updates.update(path, e -> xattrAccess(e, name), i -> {
      if (!i.xattrs().containsKey(name)) {
        throw new NamespaceException(NamespaceStatus.NOT_FOUND, path, "no xattr " + name);
      }
      Map<String, byte[]> m = new TreeMap<>(i.xattrs());
      m.remove(name);
      return i.withXAttrs(m);
    });
  }

  /** {@code user.}: WRITE on the inode; the other namespaces: a superuser. */
  private void xattrAccess(Entry e, String name) throws NamespaceException {
    if (name.startsWith("user.")) {
      access.check(e, AccessChecker.WRITE);
    } else {
      access.superuser(e.path(), "set " + name);
    }
  }

  private static void checkXAttrName(String name) {
    Objects.requireNonNull(name, "xattr name");
    int dot = name.indexOf('.');
    if (dot < 0 || !XATTR_NAMESPACES.contains(name.substring(0, dot + 1))
        || name.length() == dot + 1 || name.getBytes(StandardCharsets.UTF_8).length > 255) {
      throw new IllegalArgumentException("xattr name (" + name + ") must be 'user.', 'trusted.',"
          + " 'security.', 'system.' or 'raw.' followed by a name, at most 255 bytes");
    }
  }

  private static void checkXAttrSize(Map<String, byte[]> m, String path)
      throws NamespaceException {
    if (m.size() > InodeCodec.MAX_XATTRS) {
      throw new NamespaceException(NamespaceStatus.TOO_LARGE, path,
          "more than " + InodeCodec.MAX_XATTRS + " xattrs");
    }
    long bytes = 0;
    for (Map.Entry<String, byte[]> e : m.entrySet()) {
      bytes += e.getKey().getBytes(StandardCharsets.UTF_8).length + e.getValue().length;
    }
    if (bytes > InodeCodec.MAX_XATTR_BYTES) {
      throw new NamespaceException(NamespaceStatus.TOO_LARGE, path, "xattrs total " + bytes
          + " bytes, more than " + InodeCodec.MAX_XATTR_BYTES);
    }
  }
}
