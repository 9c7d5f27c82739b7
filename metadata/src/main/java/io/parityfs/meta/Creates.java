package io.parityfs.meta;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/**
 * The creates of one {@link Namespace} view: {@link Namespace#mkdirs(String, CreateOptions)},
 * {@link Namespace#mkdir}, {@link Namespace#create}; each new entry is one {@code multi} made by
 * {@link #createChild}. Thread-safe.
 */
final class Creates {
  private final NamespaceCore core;
  private final EntryWalker walker;
  private final AccessChecker access;
  /** Chooses a new file's targets where its layout names none; null: the layout's list stays. */
  private final LayoutPlacer placer;

  Creates(NamespaceCore core, EntryWalker walker, LayoutPlacer placer) {
    this.core = core;
    this.walker = walker;
    this.access = walker.access();
    this.placer = placer;
  }

  /** {@link Namespace#mkdirs(String, CreateOptions)}. */
  boolean mkdirs(String path, CreateOptions options) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    int failures = 0;
    while (true) {
      List<Entry> walk = walker.walk(comps);
      if (!walk.isEmpty() && !walk.get(walk.size() - 1).isDirectory()) {
        Entry file = walk.get(walk.size() - 1);
        throw new NamespaceException(walk.size() == comps.size()
            ? NamespaceStatus.ALREADY_EXISTS : NamespaceStatus.PARENT_NOT_DIRECTORY,
            file.path(), file.inode().isSymlink() ? "is a symbolic link" : "is a file");
      }
      if (walk.size() == comps.size()) {
        access.traverse(walker.rootForChecks(), walk, walk.size() - 1);
        return true;
      }
      Entry parent = walk.isEmpty() ? walker.readRoot() : walk.get(walk.size() - 1);
      access.traverse(walker.rootForChecks(), walk, walk.size());
      access.check(parent, AccessChecker.WRITE | AccessChecker.EXECUTE);
      int i = walk.size();
      boolean last = i == comps.size() - 1;
      Layout layout = last && options.layout() != null ? options.layout()
          : parent.inode().layout();
      String childPath = Names.child(parent.path(), comps.get(i));
      CreateOptions resolved = access.resolve(options, parent, childPath, true);
      // a parent made on the way is writable and searchable by its owner (HDFS's implicit u+wx)
      CreateOptions level = last ? resolved
          : resolved.withPermission(resolved.permission() | 0300);
      // each level made is progress; the next walk finds it (or whoever raced us to it)
      Inode made = createChild(parent, comps.get(i), childPath,
          id -> Inode.newDirectory(id, System.currentTimeMillis(), level, layout,
              core.config.bucketsPerDirectory()), null);
      if (made == null && ++failures >= core.config.maxRetries()) {
        throw core.conflict(p);
      }
    }
  }

  /** {@link Namespace#mkdir}. */
  FileStatus mkdir(String path, CreateOptions options) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    if (comps.isEmpty()) {
      throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, p, "the root exists");
    }
    for (int attempt = 0; attempt < core.config.maxRetries(); attempt++) {
      List<Entry> walk = walker.walk(comps);
      Entry lastFound = walk.isEmpty() ? null : walk.get(walk.size() - 1);
      if (walk.size() == comps.size()) {
        access.traverse(walker.rootForChecks(), walk, walk.size() - 1);
        throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, p, "exists");
      }
      if (lastFound != null && !lastFound.isDirectory()) {
        throw EntryWalker.notADirectory(lastFound);
      }
      if (walk.size() < comps.size() - 1) {
        throw new NamespaceException(NamespaceStatus.NOT_FOUND,
            Names.join(comps.subList(0, comps.size() - 1)), "parent directory not found");
      }
      Entry parent = lastFound == null ? walker.readRoot() : lastFound;
      access.traverse(walker.rootForChecks(), walk, walk.size());
      access.check(parent, AccessChecker.WRITE | AccessChecker.EXECUTE);
      String childPath = Names.child(parent.path(), comps.get(comps.size() - 1));
      CreateOptions resolved = access.resolve(options, parent, childPath, true);
      Layout layout = options.layout() != null ? options.layout() : parent.inode().layout();
      Inode made = createChild(parent, comps.get(comps.size() - 1), childPath,
          id -> Inode.newDirectory(id, System.currentTimeMillis(), resolved, layout,
              core.config.bucketsPerDirectory()), null);
      if (made != null) {
        return made.status(childPath);
      }
      // the multi was refused: the name was taken meanwhile (the next walk says so), or the
      // parent changed; look again
    }
    throw core.conflict(p);
  }

  /** {@link Namespace#create}. */
  FileStatus create(String path, CreateOptions options) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    if (comps.isEmpty()) {
      throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, p, "is a directory");
    }
    // Without overwrite the name is not read first: the create's multi refuses an existing
    // entry (NODEEXISTS), and only then is it read, for the error. One round trip fewer.
    boolean optimistic = !options.overwrite();
    int n = comps.size();
    for (int attempt = 0; attempt < core.config.maxRetries(); attempt++) {
      List<Entry> walk = walker.walk(optimistic ? comps.subList(0, n - 1) : comps);
      if (madeParents(walk, comps, options)) {
        continue; // the parents were missing and are made now: walk again
      }
      Entry parent = n == 1 ? walker.readRoot() : walk.get(n - 2);
      Entry existing = walk.size() == n ? walk.get(n - 1) : null;
      access.traverse(walker.rootForChecks(), walk, n - 1);
      if (existing != null && existing.inode().isSymlink() && options.overwrite()) {
        // POSIX open(O_CREAT | O_TRUNC) follows a link: the caller resolves it and asks again
        throw EntryWalker.unresolvedLink(existing);
      }
      if (existing != null && (existing.isDirectory() || !options.overwrite())) {
        throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, p,
            existing.isDirectory() ? "is a directory" : "file exists");
      }
      access.check(parent, AccessChecker.WRITE | AccessChecker.EXECUTE);
      if (existing != null) {
        access.check(existing, AccessChecker.WRITE);
        refuseIfLeasedByOther(existing, p);
      }
      Layout asked = options.layout() != null ? options.layout() : parent.inode().layout();
      Layout layout = placed(asked, p);
      CreateOptions resolved = access.resolve(options, parent, p, false);
      Lease lease = options.lease() ? core.leases.grant() : null;
      Inode made = createChild(parent, comps.get(n - 1), p,
          id -> Inode.newFile(id, System.currentTimeMillis(), resolved, layout, lease), existing);
      if (made != null) {
        if (lease != null) {
          String entry = core.zn.entry(parent.inode().id(), parent.inode().buckets(),
              comps.get(n - 1));
          core.writing.put(made.id(), new Entry(p, parent.inode().id(), entry, made, 0));
        }
        return made.status(p);
      }
      if (optimistic) {
        Entry there = walker.read(parent.inode().id(), parent.inode().buckets(),
            comps.get(n - 1), p);
        if (there != null) {
          throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, p,
              there.isDirectory() ? "is a directory" : "file exists");
        }
      }
    }
    throw core.conflict(p);
  }

  /**
   * For a create of {@code comps} (a file or a link) after {@code walk} (of the parents, or of
   * the whole path): false when the parent directory is there; true when it was missing and
   * {@code options} let it be made (made now, the caller walks again); otherwise
   * PARENT_NOT_DIRECTORY or UNRESOLVED_LINK for what is in the way, or NOT_FOUND.
   */
  private boolean madeParents(List<Entry> walk, List<String> comps, CreateOptions options)
      throws NamespaceException {
    int n = comps.size();
    if (walk.size() >= n - 1 && (n == 1 || walk.get(n - 2).isDirectory())) {
      return false;
    }
    Entry lastFound = walk.isEmpty() ? null : walk.get(walk.size() - 1);
    if (lastFound != null && !lastFound.isDirectory()) {
      throw EntryWalker.notADirectory(lastFound);
    }
    String parentPath = Names.join(comps.subList(0, n - 1));
    if (!options.createParents()) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, parentPath,
          "parent directory does not exist");
    }
    mkdirs(parentPath, CreateOptions.directory().withOwner(options.owner(), options.group()));
    return true;
  }

  /** The longest symbolic link target, in UTF-8 bytes (Linux's PATH_MAX less its NUL). */
  static final int MAX_LINK_TARGET_BYTES = 4095;

  /** {@link Namespace#createSymlink}. */
  FileStatus createSymlink(String target, String path, CreateOptions options)
      throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    if (target == null || target.isEmpty() || target.indexOf('\0') >= 0
        || target.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
            > MAX_LINK_TARGET_BYTES) {
      throw new NamespaceException(NamespaceStatus.INVALID_PATH, p, "a link target is 1 to "
          + MAX_LINK_TARGET_BYTES + " bytes without NUL: " + (target == null ? "none" : "\""
              + target + "\" (" + target.length() + " characters)"));
    }
    if (comps.isEmpty()) {
      throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, p, "is a directory");
    }
    int n = comps.size();
    for (int attempt = 0; attempt < core.config.maxRetries(); attempt++) {
      List<Entry> walk = walker.walk(comps.subList(0, n - 1));
      if (madeParents(walk, comps, options)) {
        continue; // the parents were missing and are made now: walk again
      }
      Entry parent = n == 1 ? walker.readRoot() : walk.get(n - 2);
      access.traverse(walker.rootForChecks(), walk, n - 1);
      access.check(parent, AccessChecker.WRITE | AccessChecker.EXECUTE);
      CreateOptions resolved = access.resolve(options, parent, p, false);
      Layout layout = parent.inode().layout();
      Inode made = createChild(parent, comps.get(n - 1), p,
          id -> Inode.newSymlink(id, System.currentTimeMillis(), resolved, layout, target), null);
      if (made != null) {
        return made.status(p);
      }
      Entry there = walker.read(parent.inode().id(), parent.inode().buckets(), comps.get(n - 1),
          p);
      if (there != null) {
        throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, p, there.isDirectory()
            ? "is a directory" : there.inode().isSymlink() ? "is a symbolic link" : "file exists");
      }
    }
    throw core.conflict(p);
  }

  /** LEASE_CONFLICT when another client's live session writes the file. */
  private void refuseIfLeasedByOther(Entry file, String p) throws NamespaceException {
    Lease l = file.inode().lease();
    if (l != null && !core.leases.mine(l) && core.leases.alive(l)) {
      throw new NamespaceException(NamespaceStatus.LEASE_CONFLICT, p,
          "open for writing by " + l.client());
    }
  }

  /**
   * Creates one entry in {@code parent}, replacing {@code existing} if given.
   *
   * @return the inode made, or null when the caller should re-walk and try again
   */
  private Inode createChild(Entry parent, String name, String path,
      LongFunction<Inode> make, Entry existing) throws NamespaceException {
    long dirId = parent.inode().id();
    int buckets = parent.inode().buckets();
    long id = core.ids.next();
    Inode inode = make.apply(id);
    String entry = core.zn.entry(dirId, buckets, name);
    List<Op> ops = new ArrayList<>();
    ops.add(core.zk.check(core.zn.container(dirId), 0));
    if (existing != null) {
      ops.add(core.zk.delete(existing.znode(), existing.zkVersion()));
      ops.addAll(core.removals.opsFor(existing.inode()));
    }
    int createAt = ops.size();
    ops.add(core.zk.create(entry, InodeCodec.encode(inode)));
    if (inode.isDirectory()) {
      ops.add(core.zk.create(core.zn.container(id), new byte[0]));
    }
    if (inode.lease() != null) {
      ops.add(core.leases.createRecord(id, entry, path, inode.lease()));
    }
    Zk.Failure f = core.zk.multi(ops, () -> {
      Entry now = walker.read(dirId, buckets, name, path);
      return now != null && now.inode().id() == id;
    }, path);
    if (f == null) {
      return inode;
    }
    if (f.index() == createAt && f.code() == KeeperException.Code.NONODE) {
      ensureBucket(core, core.zn.bucket(dirId, name, buckets));
    }
    return null; // parent gone or detached, entry raced: the re-walk decides
  }

  /** Creates an entry bucket that a refused create found missing (it is made on first use). */
  static void ensureBucket(NamespaceCore core, String bucket) throws NamespaceException {
    try {
      core.client.create().forPath(bucket);
    } catch (KeeperException.NodeExistsException | KeeperException.NoNodeException e) {
      // made concurrently; or the directory is gone, which the next walk reports
    } catch (Exception e) {
      throw Zk.failure(bucket, "creating an entry bucket", e);
    }
  }

  /** The targets of a new file: drawn where {@code asked} names none, else checked. */
  private Layout placed(Layout asked, String path) throws NamespaceException {
    if (placer == null) {
      return asked;
    }
    if (asked.targets().isEmpty()) {
      return placer.place(asked, path);
    }
    placer.admitNamed(asked, path);
    return asked;
  }
}
