package io.parityfs.meta;

import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.KeeperException;

/**
 * Path lookups of one {@link Namespace} view: walks from the root through the {@link
 * EntryCache}, with the permission checks of the view's {@link AccessChecker}. Thread-safe.
 */
final class EntryWalker {
  private final NamespaceCore core;
  private final AccessChecker access;

  EntryWalker(NamespaceCore core, AccessChecker access) {
    this.core = core;
    this.access = access;
  }

  /** The checker of the view this walker serves. */
  AccessChecker access() {
    return access;
  }

  /**
   * The entry at a path after the permission checks: EXECUTE on every directory above it (also
   * before reporting NOT_FOUND, as HDFS), then {@code bits} on the entry itself.
   */
  Entry findChecked(List<String> comps, String p, int bits) throws NamespaceException {
    if (comps.isEmpty()) {
      Entry root = readRoot();
      access.check(root, bits);
      return root;
    }
    List<Entry> walk = walk(comps);
    access.traverse(rootForChecks(), walk, comps.size() - 1);
    if (walk.size() < comps.size()) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, p, "no such file or directory");
    }
    Entry e = walk.get(walk.size() - 1);
    access.check(e, bits);
    return e;
  }

  /** The root's entry when permission checks apply (its bits guard every path), else null. */
  Entry rootForChecks() throws NamespaceException {
    return access.active() ? readRoot() : null;
  }

  /** The directory holding the last entry of a walk (the root for a one-component walk). */
  Entry parentOf(List<Entry> walk) throws NamespaceException {
    return walk.size() == 1 ? readRoot() : walk.get(walk.size() - 2);
  }

  /** The entry at a path, or NOT_FOUND (also when a component on the way is a file). */
  Entry find(List<String> comps, String p) throws NamespaceException {
    if (comps.isEmpty()) {
      return readRoot();
    }
    List<Entry> walk = walk(comps);
    if (walk.size() < comps.size()) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, p, "no such file or directory");
    }
    return walk.get(walk.size() - 1);
  }

  /**
   * Why {@code e}, found where a directory was expected (above the path an operation names), is
   * not one: PARENT_NOT_DIRECTORY for a file, UNRESOLVED_LINK for a symbolic link.
   */
  static NamespaceException notADirectory(Entry e) {
    return e.inode().isSymlink() ? unresolvedLink(e)
        : new NamespaceException(NamespaceStatus.PARENT_NOT_DIRECTORY, e.path(), "is a file");
  }

  /** UNRESOLVED_LINK for the link {@code e}: the caller resolves its target and asks again. */
  static NamespaceException unresolvedLink(Entry e) {
    return new NamespaceException(NamespaceStatus.UNRESOLVED_LINK, e.path(),
        "is a symbolic link to " + e.inode().target());
  }

  /**
   * Reads the entries of the components from the root down, one {@code getData} each, stopping
   * after the first missing component or the first file. A symbolic link before the last
   * component is UNRESOLVED_LINK (a link as the last component is returned, not followed).
   */
  List<Entry> walk(List<String> comps) throws NamespaceException {
    if (core.closed.get()) {
      throw new IllegalStateException("namespace closed");
    }
    core.gate.await(comps.isEmpty() ? "/" : comps.get(0));
    List<Entry> out = new ArrayList<>(comps.size());
    long dirId = ZNodes.ROOT_ID;
    int buckets = core.rootBuckets;
    String path = "/";
    for (String name : comps) {
      String p = Names.child(path, name);
      Entry e = read(dirId, buckets, name, p);
      if (e == null) {
        break;
      }
      out.add(e);
      if (!e.isDirectory()) {
        if (e.inode().isSymlink() && out.size() < comps.size()) {
          throw unresolvedLink(e);
        }
        break;
      }
      dirId = e.inode().id();
      buckets = e.inode().buckets();
      path = p;
    }
    return out;
  }

  /** The entry {@code name} of a directory (from the {@link EntryCache}), or null if none. */
  Entry read(long dirId, int buckets, String name, String path) throws NamespaceException {
    String z = core.zn.entry(dirId, buckets, name);
    EntryCache.Cached c = core.cache.read(z, path);
    return c == null ? null : new Entry(path, dirId, z, c.inode(), c.version());
  }

  Entry readRoot() throws NamespaceException {
    if (core.closed.get()) {
      throw new IllegalStateException("namespace closed");
    }
    EntryCache.Cached c = core.cache.read(core.zn.rootInode, "/");
    if (c == null) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, "/", "the root record "
          + core.zn.rootInode + " is missing");
    }
    return new Entry("/", 0, core.zn.rootInode, c.inode(), c.version());
  }

  /** The children of a znode; none when it does not exist. */
  List<String> children(String znode) throws NamespaceException {
    try {
      return core.client.getChildren().forPath(znode);
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (Exception e) {
      throw Zk.failure(znode, "listing " + znode, e);
    }
  }
}
