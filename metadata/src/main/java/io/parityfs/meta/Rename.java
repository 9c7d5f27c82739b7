package io.parityfs.meta;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/**
 * The renames of one {@link Namespace} view, {@link Namespace#rename} and {@link
 * Namespace#renameReplacing}: one {@code multi} each, guarded by the versions of both ancestor
 * chains. Thread-safe.
 */
final class Rename {
  private final NamespaceCore core;
  private final EntryWalker walker;
  private final AccessChecker access;

  Rename(NamespaceCore core, EntryWalker walker) {
    this.core = core;
    this.walker = walker;
    this.access = walker.access();
  }

  /**
   * {@link Namespace#rename} ({@code replace} false) or {@link Namespace#renameReplacing}.
   *
   * @return the final path of the source
   */
  String rename(String src, String dst, boolean replace) throws NamespaceException {
    List<String> s = Names.split(src);
    List<String> d = Names.split(dst);
    String sp = Names.join(s);
    if (s.isEmpty()) {
      throw new NamespaceException(NamespaceStatus.INVALID_RENAME, sp, "cannot rename the root");
    }
    boolean destinationRead = false;
    for (int attempt = 0; attempt < core.config.maxRetries(); attempt++) {
      List<Entry> sw = walker.walk(s);
      Entry root = walker.rootForChecks();
      access.traverse(root, sw, s.size() - 1);
      if (sw.size() < s.size()) {
        throw new NamespaceException(NamespaceStatus.NOT_FOUND, sp, "rename source not found");
      }
      Entry source = sw.get(sw.size() - 1);
      if (d.equals(s)) {
        return sp;
      }
      if (isPrefix(s, d)) {
        throw new NamespaceException(NamespaceStatus.INVALID_RENAME, Names.join(d),
            "cannot move " + sp + " into itself");
      }
      // First assume the destination does not exist (the common case) and read only its
      // parent's chain: the multi's create refuses an existing entry (NODEEXISTS), and then
      // the destination is read and the rules for an existing one apply.
      if (replace && d.isEmpty()) {
        throw new NamespaceException(NamespaceStatus.INVALID_RENAME, "/",
            "cannot replace the root");
      }
      List<Entry> dw = !replace && (destinationRead || d.isEmpty()) ? walker.walk(d)
          : walker.walk(d.subList(0, d.size() - 1));
      List<String> target;
      List<Entry> parentChain; // the destination parent's chain, root excluded
      if (dw.size() == d.size() && !d.isEmpty() && !dw.get(dw.size() - 1).isDirectory()) {
        throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, Names.join(d),
            "rename destination is a file");
      }
      if (dw.size() == d.size()) {
        target = new ArrayList<>(d);
        target.add(s.get(s.size() - 1));
        if (target.equals(s)) {
          return sp;
        }
        parentChain = dw;
      } else {
        target = d;
        if (dw.size() < d.size() - 1 || (!dw.isEmpty() && !dw.get(dw.size() - 1).isDirectory())) {
          Entry lastFound = dw.isEmpty() ? null : dw.get(dw.size() - 1);
          if (lastFound != null && !lastFound.isDirectory()) {
            throw EntryWalker.notADirectory(lastFound);
          }
          throw new NamespaceException(NamespaceStatus.NOT_FOUND,
              Names.join(d.subList(0, d.size() - 1)), "rename destination's parent not found");
        }
        parentChain = dw;
      }
      for (Entry a : parentChain) {
        if (a.inode().id() == source.inode().id()) {
          throw new NamespaceException(NamespaceStatus.INVALID_RENAME, Names.join(d),
              "cannot move " + sp + " into itself");
        }
      }
      String tp = Names.join(target);
      String name = target.get(target.size() - 1);
      long dstDir = parentChain.isEmpty() ? ZNodes.ROOT_ID
          : parentChain.get(parentChain.size() - 1).inode().id();
      int dstBuckets = parentChain.isEmpty() ? core.rootBuckets
          : parentChain.get(parentChain.size() - 1).inode().buckets();
      Entry replaced = null;
      if (replace) {
        replaced = walker.read(dstDir, dstBuckets, name, tp);
        if (replaced != null) {
          if (replaced.inode().id() == source.inode().id()) {
            return tp; // the same entry (POSIX: nothing to do)
          }
          if (!source.isDirectory() && replaced.isDirectory()) {
            throw new NamespaceException(NamespaceStatus.IS_A_DIRECTORY, tp,
                "cannot replace a directory with a file");
          }
          if (source.isDirectory() && !replaced.isDirectory()) {
            throw new NamespaceException(NamespaceStatus.NOT_A_DIRECTORY, tp,
                "cannot replace a file with a directory");
          }
        }
      } else if (target != d && walker.read(dstDir, dstBuckets, name, tp) != null) {
        throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, tp,
            "rename destination exists");
      }
      if (access.active()) {
        Entry dstParent = parentChain.isEmpty() ? root : parentChain.get(parentChain.size() - 1);
        access.traverse(root, parentChain, parentChain.size());
        access.removeFrom(sw.size() == 1 ? root : sw.get(sw.size() - 2), source);
        access.check(dstParent, AccessChecker.WRITE | AccessChecker.EXECUTE);
        if (replaced != null) {
          access.removeFrom(dstParent, replaced);
        }
      }
      String newEntry = core.zn.entry(dstDir, dstBuckets, name);
      Set<String> checked = new LinkedHashSet<>();
      List<Op> ops = new ArrayList<>();
      for (Entry a : sw.subList(0, sw.size() - 1)) {
        if (checked.add(a.znode())) {
          ops.add(core.zk.check(a.znode(), a.zkVersion()));
        }
      }
      for (Entry a : parentChain) {
        if (checked.add(a.znode())) {
          ops.add(core.zk.check(a.znode(), a.zkVersion()));
        }
      }
      for (String c : List.of(core.zn.container(source.parentId()), core.zn.container(dstDir))) {
        if (checked.add(c)) {
          ops.add(core.zk.check(c, 0));
        }
      }
      ops.add(core.zk.delete(source.znode(), source.zkVersion()));
      int replacedFrom = ops.size();
      if (replaced != null) {
        ops.add(core.zk.delete(replaced.znode(), replaced.zkVersion()));
        if (replaced.isDirectory()) {
          // empty, or a bucket delete fails NOTEMPTY: its container and buckets go with it
          String container = core.zn.container(replaced.inode().id());
          for (String b : walker.children(container)) {
            ops.add(core.zk.delete(container + "/" + b, -1));
          }
          ops.add(core.zk.delete(container, 0));
        } else {
          ops.addAll(core.removals.opsFor(replaced.inode()));
        }
      }
      int replacedTo = ops.size();
      int createAt = ops.size();
      ops.add(core.zk.create(newEntry, InodeCodec.encode(source.inode())));
      long id = source.inode().id();
      if (source.inode().lease() != null) {
        ops.add(core.leases.moveRecord(id, newEntry, tp, source.inode().lease()));
      }
      if (!source.isDirectory()) {
        ops.addAll(core.repairIndex.onRename(source.inode(), newEntry, tp));
      }
      int srcBuckets = sw.size() == 1 ? core.rootBuckets : sw.get(sw.size() - 2).inode().buckets();
      Zk.Failure f = core.zk.multi(ops, () -> {
        Entry atSource = walker.read(source.parentId(), srcBuckets, s.get(s.size() - 1), sp);
        Entry atTarget = walker.read(dstDir, dstBuckets, name, tp);
        return (atSource == null || atSource.inode().id() != id)
            && atTarget != null && atTarget.inode().id() == id;
      }, sp);
      if (f == null) {
        return tp;
      }
      if (replaced != null && replaced.isDirectory() && f.index() > replacedFrom
          && f.index() < replacedTo && f.code() == KeeperException.Code.NOTEMPTY) {
        throw new NamespaceException(NamespaceStatus.NOT_EMPTY, tp,
            "cannot replace a directory that is not empty");
      }
      if (f.index() == createAt && f.code() == KeeperException.Code.NONODE) {
        Creates.ensureBucket(core, core.zn.bucket(dstDir, name, dstBuckets));
      }
      if (f.index() == createAt && f.code() == KeeperException.Code.NODEEXISTS) {
        destinationRead = true; // it exists: read it and apply the rules
      }
    }
    throw core.conflict(sp);
  }

  private static boolean isPrefix(List<String> prefix, List<String> of) {
    return of.size() > prefix.size() && of.subList(0, prefix.size()).equals(prefix);
  }
}
