package io.parityfs.meta;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;

/**
 * The ParityFS namespace, stored in ZooKeeper through a caller-owned, started {@link
 * CuratorFramework} (its namespace/chroot and retry policy apply). See {@code docs/metadata.md}
 * for the znode layout ({@link ZNodes}), the transactions of each operation and the consistency
 * guarantees; in short:
 *
 * <ul>
 *   <li>every mutation is one ZooKeeper {@code multi} guarded by the znode versions it read, so
 *       it is atomic and linearizable, and concurrent mutations never lose one another's effect
 *       (a refused {@code multi} is re-evaluated from fresh reads, at most {@code maxRetries}
 *       times, then CONFLICT);
 *   <li>rename of a file or of a directory of any size is one {@code multi}: delete the entry
 *       znode, create it under the new name, and check the versions of both ancestor chains
 *       (which also makes concurrent renames unable to create a cycle);
 *   <li>reads are ZooKeeper reads through this client's session: they see every write this
 *       session made, and may lag other sessions' writes by the follower's replication delay
 *       (call {@link #sync()} first to see everything committed before it);
 *   <li>permission bits and owners are stored, not checked (a later slice).
 * </ul>
 *
 * Errors are {@link NamespaceException} with a {@link NamespaceStatus}; caller mistakes
 * (negative length, bad page size, bad xattr name) are {@link IllegalArgumentException}.
 * Thread-safe. {@link #close()} does not close the Curator client.
 */
public final class Namespace implements Closeable {
  private static final System.Logger LOG = System.getLogger(Namespace.class.getName());
  /** The most rounds {@link #recoverExpiredLeases} skips a file whose recovery keeps failing. */
  private static final int MAX_RECOVERY_SKIP = 8;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> XATTR_NAMESPACES =
      Set.of("user.", "trusted.", "security.", "system.", "raw.");

  /**
   * Files whose recovery failed: {rounds still to skip, last skip}; doubled per failure up to
   * {@link #MAX_RECOVERY_SKIP} rounds, gone on success or when the file is no longer open.
   */
  private final Map<Long, int[]> recoveryBackoff = new java.util.HashMap<>();
  private final NamespaceConfig config;
  private final Zk zk;
  private final CuratorFramework client;
  private final ZNodes zn;
  private final IdAllocator ids;
  private final int rootBuckets;
  private final DirectoryLister lister;
  /** Lookups; every write path invalidates the entries it changed (see {@link EntryCache}). */
  final EntryCache cache;
  private final FileRemovals removals;
  private final SubtreePurger purger;
  private final Leases leases;
  private final ConnectionGate gate;
  private final AccessChecker access;
  private final LayoutPlacer placer;
  /**
   * The last known entry of each file this client writes (lease held): a writer's commit tries
   * it first, with no read; the commit's versioned write refuses it if anything changed.
   */
  private final Map<Long, Entry> writing;
  private final AtomicBoolean closed;

  private Namespace(CuratorFramework client, NamespaceConfig config, int rootBuckets) {
    this.config = config;
    this.client = client;
    this.zk = new Zk(client);
    this.zn = new ZNodes(config.root());
    this.ids = new IdAllocator(client, zn, config.idBlock(), config.maxRetries(),
        new AdvertisedIds(zk));
    this.rootBuckets = rootBuckets;
    this.cache = new EntryCache(client, config.entryCacheSize());
    zk.invalidates(cache);
    this.lister = new DirectoryLister(zk, zn, cache);
    this.removals = new FileRemovals(zk, zn);
    this.purger = new SubtreePurger(zk, zn, removals);
    this.leases = new Leases(zk, zn);
    this.gate = new ConnectionGate(client, config.suspendedWaitMillis());
    this.access = new AccessChecker(config, Caller.of(config.superuser(), config.superGroup()));
    this.placer = null;
    this.writing = new java.util.concurrent.ConcurrentHashMap<>();
    this.closed = new AtomicBoolean();
    gate.register();
  }

  /** A view acting for another caller or placing files; shares everything else with base. */
  private Namespace(Namespace base, Caller caller, LayoutPlacer placer) {
    this.config = base.config;
    this.client = base.client;
    this.zk = base.zk;
    this.zn = base.zn;
    this.ids = base.ids;
    this.rootBuckets = base.rootBuckets;
    this.cache = base.cache;
    this.lister = base.lister;
    this.removals = base.removals;
    this.purger = base.purger;
    this.leases = base.leases;
    this.gate = base.gate;
    this.access = new AccessChecker(config, caller);
    this.placer = placer;
    this.writing = base.writing;
    this.closed = base.closed;
  }

  /**
   * This namespace acting for {@code caller}: every operation is checked against the caller's
   * user and groups, and creates get its owner and umask. {@link #open} returns a namespace
   * acting for the configured superuser (a trusted service: the cluster manager, admin tools);
   * clients act through a view. Views are cheap and share the session, caches and leases of
   * this namespace; closing any of them closes all.
   */
  public Namespace as(Caller caller) {
    return new Namespace(this, Objects.requireNonNull(caller, "caller"), placer);
  }

  /**
   * This namespace choosing the targets of every new file whose layout names none, with {@code
   * placer}, inside {@link #create} (so the file is born with its targets, in the create's one
   * {@code multi}). Without it, a new file's target list stays as the layout gives it.
   */
  public Namespace withPlacement(LayoutPlacer placer) {
    return new Namespace(this, access.caller(), Objects.requireNonNull(placer, "placer"));
  }

  /**
   * Checks every id this namespace (and every view of it) hands out against {@code
   * highestFileId}, a live view of the highest file id the storage targets advertise (e.g.
   * {@code TargetRegistry::highestFileId}): an id at or below it is never used, the counter is
   * raised past it (see {@link IdAllocator}). Without it, that is checked only when a block of
   * ids is taken, so a target registering later is seen at the next block.
   */
  public void checkIdsAgainst(java.util.function.LongSupplier highestFileId) {
    ids.checkAgainst(Objects.requireNonNull(highestFileId, "highestFileId"));
  }

  /** Who this namespace acts for. */
  public Caller caller() {
    return access.caller();
  }

  /**
   * Opens the namespace under {@code config.root()}. Where there is none, {@code
   * config.ifMissing()} decides: FAIL (the default) throws NOT_FOUND naming the ZooKeeper
   * ensemble, chroot and root and how to create one; FORMAT formats it (one {@code multi};
   * concurrent openers agree on one format); FORMAT_IF_NO_DATA formats it only while no
   * registered storage target advertises chunks or fences (NOT_FOUND otherwise). Either way the
   * id counter is then raised past the highest file id any registered target advertises (see
   * {@link IdAllocator}), with a WARNING where it had to be.
   *
   * @param client a started Curator client; the caller keeps ownership
   */
  public static Namespace open(CuratorFramework client, NamespaceConfig config)
      throws NamespaceException {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(config, "config");
    if (client.getState() != CuratorFrameworkState.STARTED) {
      throw new IllegalStateException("the Curator client must be started");
    }
    ZNodes zn = new ZNodes(config.root());
    try {
      if (client.checkExists().forPath(zn.root) == null) {
        formatIfAllowed(client, config, zn);
      }
      DeleteQueue.ensureFormatted(client, zn);
      Leases.ensureFormatted(client, zn);
      Zk.ensureAll(client, List.of(zn.idSkips));
      byte[] rootData = client.getData().forPath(zn.rootInode);
      Inode root = InodeCodec.decode(rootData, "/");
      Map<?, ?> format = JSON.readValue(client.getData().forPath(zn.root), Map.class);
      if (!Integer.valueOf(1).equals(format.get("schema"))) {
        throw new NamespaceException(NamespaceStatus.CORRUPT, zn.root,
            "namespace format " + format + " is not schema 1");
      }
      Namespace ns = new Namespace(client, config, root.buckets());
      try {
        ns.ids.raisePastAdvertised();
      } catch (NamespaceException | RuntimeException e) {
        ns.close();
        throw e;
      }
      return ns;
    } catch (NamespaceException e) {
      throw e;
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, zn.root, "unreadable format record",
          e);
    } catch (Exception e) {
      throw Zk.failure(zn.root, "opening the namespace", e);
    }
  }

  /**
   * Formats the namespace under {@code config.root()} unless it exists (whatever {@code
   * config.ifMissing()} says): what {@code parityfs format} runs. The new namespace's id
   * counter starts past every file id the registered storage targets advertise.
   *
   * @return whether this call created it (false: it existed)
   */
  public static boolean format(CuratorFramework client, NamespaceConfig config)
      throws NamespaceException {
    ZNodes zn = new ZNodes(config.root());
    try {
      if (client.checkExists().forPath(zn.root) != null) {
        return false;
      }
      boolean created = format(client, config, zn);
      open(client, config).close(); // completes what open ensures, and raises the counter
      return created;
    } catch (NamespaceException e) {
      throw e;
    } catch (Exception e) {
      throw Zk.failure(zn.root, "formatting the namespace", e);
    }
  }

  private static void formatIfAllowed(CuratorFramework client, NamespaceConfig config,
      ZNodes zn) throws Exception {
    NamespaceConfig.IfMissing policy = config.ifMissing();
    AdvertisedIds.Highest held = policy == NamespaceConfig.IfMissing.FORMAT_IF_NO_DATA
        ? new AdvertisedIds(new Zk(client)).highest() : AdvertisedIds.NONE;
    if (policy == NamespaceConfig.IfMissing.FORMAT
        || policy == NamespaceConfig.IfMissing.FORMAT_IF_NO_DATA && held.fileId() == 0) {
      format(client, config, zn);
      return;
    }
    String chroot = client.getNamespace() == null || client.getNamespace().isEmpty() ? "none"
        : "/" + client.getNamespace();
    String where = "ZooKeeper " + client.getZookeeperClient().getCurrentConnectionString()
        + ", chroot " + chroot + ", root " + zn.root;
    String why = held.fileId() > 0
        ? "; yet target " + held.targetId() + " holds chunks of file ids up to " + held.fileId()
            + ", so this ZooKeeper has lost the namespace (or the chroot is wrong): restore"
            + " it, or create an empty one on purpose with `parityfs format`"
        : ": check --zookeeper and --chroot (PARITYFS_ZOOKEEPER, PARITYFS_CHROOT; Hadoop:"
            + " the pfs:// authority and its chroot keys), or create one with"
            + " `parityfs format`";
    throw new NamespaceException(NamespaceStatus.NOT_FOUND, zn.root,
        "no ParityFS namespace here (" + where + ")" + why);
  }

  /** Formats; false when another opener formatted it concurrently. */
  private static boolean format(CuratorFramework client, NamespaceConfig config, ZNodes zn)
      throws Exception {
    String parent = zn.root.substring(0, zn.root.lastIndexOf('/'));
    if (!parent.isEmpty()) {
      try {
        client.create().creatingParentsIfNeeded().forPath(parent);
      } catch (KeeperException.NodeExistsException e) {
        // the storage nodes' /parityfs, or another opener's
      }
    }
    long now = System.currentTimeMillis();
    // as HDFS: the root belongs to the superuser and its group, rwxr-xr-x
    Inode root = Inode.newDirectory(ZNodes.ROOT_ID, now,
        CreateOptions.directory().withOwner(config.superuser(), config.superGroup()),
        config.rootLayout(), config.bucketsPerDirectory());
    List<CuratorOp> ops = new ArrayList<>();
    ops.add(client.transactionOp().create().forPath(zn.root, JSON.writeValueAsBytes(
        Map.of("schema", 1, "rootId", ZNodes.ROOT_ID, "shards", ZNodes.SHARDS))));
    ops.add(client.transactionOp().create().forPath(zn.ids,
        Long.toString(ZNodes.ROOT_ID + 1).getBytes(StandardCharsets.US_ASCII)));
    ops.add(client.transactionOp().create().forPath(zn.idSkips, IdSkips.encode(List.of())));
    ops.add(client.transactionOp().create().forPath(zn.rootInode, InodeCodec.encode(root)));
    ops.add(client.transactionOp().create().forPath(zn.dirs, new byte[0]));
    ops.add(client.transactionOp().create().forPath(zn.trash, new byte[0]));
    ops.add(client.transactionOp().create().forPath(zn.deletes, new byte[0]));
    for (int i = 0; i < ZNodes.SHARDS; i++) {
      ops.add(client.transactionOp().create().forPath(zn.deleteShard(i), new byte[0]));
    }
    for (int i = 0; i < ZNodes.SHARDS; i++) {
      ops.add(client.transactionOp().create().forPath(zn.shard(i), new byte[0]));
    }
    ops.add(client.transactionOp().create().forPath(zn.container(ZNodes.ROOT_ID), new byte[0]));
    try {
      client.transaction().forOperations(ops);
      LOG.log(System.Logger.Level.INFO, "namespace formatted at {0}", zn.root);
      return true;
    } catch (KeeperException.NodeExistsException e) {
      // formatted concurrently by another client (or by our own retried attempt)
      return false;
    }
  }

  // ---------------------------------------------------------------- reads

  /** {@link #getStatus}, or null where the path does not exist (other failures throw). */
  public FileStatus statusOrNull(String path) throws NamespaceException {
    try {
      return getStatus(path);
    } catch (NamespaceException e) {
      if (e.status() == NamespaceStatus.NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  /** The status of a path (EXECUTE on the directories above it). */
  public FileStatus getStatus(String path) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    return findChecked(comps, p, 0).inode().status(p);
  }

  /**
   * The status of a file about to be read: as {@link #getStatus} and READ on the file (Hadoop's
   * {@code open}). IS_A_DIRECTORY for a directory.
   */
  public FileStatus openForRead(String path) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    Entry e = findChecked(comps, p, AccessChecker.READ);
    if (e.isDirectory()) {
      throw new NamespaceException(NamespaceStatus.IS_A_DIRECTORY, p, "cannot open a directory");
    }
    return e.inode().status(p);
  }

  /** Whether the path exists (EXECUTE on the directories above it). */
  public boolean exists(String path) throws NamespaceException {
    List<String> comps = Names.split(path);
    if (comps.isEmpty()) {
      return true;
    }
    List<Entry> walk = walk(comps);
    access.traverse(rootForChecks(), walk, comps.size() - 1);
    return walk.size() == comps.size();
  }

  /**
   * One page of a directory's entries, sorted by name (UTF-8 byte order), after the cursor.
   * A file lists as itself (first page only), as Hadoop's {@code listStatus} does.
   *
   * <p>Cost: one {@code getChildren} of the directory and one per non-empty bucket (in
   * parallel), then one {@code getData} per entry of the page (in parallel). Pages are
   * independent reads: an entry created or deleted during a listing may or may not appear,
   * and no entry that exists throughout the listing is missed or returned twice.
   *
   * @param after the cursor: the last name of the previous page, or null for the first page
   * @param limit the page size, 1..{@code maxPageSize}
   */
  public DirectoryPage list(String path, String after, int limit) throws NamespaceException {
    if (limit < 1 || limit > config.maxPageSize()) {
      throw new IllegalArgumentException("limit (" + limit + ") must be in [1, "
          + config.maxPageSize() + "]");
    }
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    Entry dir = findChecked(comps, p, 0);
    if (!dir.isDirectory()) {
      return new DirectoryPage(after == null ? List.of(dir.inode().status(p)) : List.of(), null);
    }
    access.check(dir, AccessChecker.READ | AccessChecker.EXECUTE);
    return lister.page(dir, after, limit);
  }

  /** Bucket name lists the lister read from ZooKeeper (its cache misses), for tests. */
  long bucketReads() {
    return lister.bucketReads();
  }

  /** Every entry of a directory (pages of {@code maxPageSize}); for small directories and tests. */
  public List<FileStatus> listAll(String path) throws NamespaceException {
    List<FileStatus> out = new ArrayList<>();
    String cursor = null;
    do {
      DirectoryPage page = list(path, cursor, config.maxPageSize());
      out.addAll(page.entries());
      cursor = page.next();
    } while (cursor != null);
    return out;
  }

  /**
   * The extended attributes of a path, by name: READ on it; a non-superuser sees only the
   * {@code user.} and {@code security.} namespaces (as HDFS).
   */
  public Map<String, byte[]> getXAttrs(String path) throws NamespaceException {
    List<String> comps = Names.split(path);
    Map<String, byte[]> out = new LinkedHashMap<>();
    Entry e = findChecked(comps, Names.join(comps), AccessChecker.READ);
    e.inode().xattrs().forEach((k, v) -> {
      if (visible(k)) {
        out.put(k, v.clone());
      }
    });
    return out;
  }

  private boolean visible(String xattr) {
    return access.isSuperuser() || !config.permissions() || xattr.startsWith("user.")
        || xattr.startsWith("security.");
  }

  /** One extended attribute; NOT_FOUND if the path or the attribute does not exist. */
  public byte[] getXAttr(String path, String name) throws NamespaceException {
    checkXAttrName(name);
    byte[] v = getXAttrs(path).get(name);
    if (v == null) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, path, "no xattr " + name);
    }
    return v;
  }

  /**
   * Waits until this session has seen every write committed before the call (ZooKeeper {@code
   * sync}); reads after it are as fresh as a write.
   */
  public void sync() throws NamespaceException {
    // Curator's sync() only queues the request: wait for its reply. ZooKeeper delivers the reply
    // on its event thread after every watch event queued before it, so once it is here the
    // lookup cache has also dropped every entry changed before the call.
    java.util.concurrent.CompletableFuture<org.apache.curator.framework.api.CuratorEvent> done =
        new java.util.concurrent.CompletableFuture<>();
    try {
      client.sync().inBackground((c, event) -> done.complete(event)).forPath(zn.root);
    } catch (Exception e) {
      throw Zk.failure(zn.root, "sync", e);
    }
    int rc = Zk.joinAll(List.of(done), "/").get(0).getResultCode();
    if (rc != 0) {
      throw new NamespaceException(NamespaceStatus.UNAVAILABLE, "/", "sync: ZooKeeper "
          + KeeperException.Code.get(rc));
    }
  }

  // ---------------------------------------------------------------- creates

  /** {@link #mkdirs(String, CreateOptions)} with {@link CreateOptions#directory()}. */
  public boolean mkdirs(String path) throws NamespaceException {
    return mkdirs(path, CreateOptions.directory());
  }

  /**
   * Makes a directory and its missing parents, each with one {@code multi} (check the parent's
   * container, create the entry, create the new directory's container). Succeeds (true) when the
   * directory already exists; ALREADY_EXISTS when the path is a file, PARENT_NOT_DIRECTORY when
   * an ancestor is. A new directory's default layout is {@code options.layout()} or its
   * parent's; its parents inherit their parent's.
   */
  public boolean mkdirs(String path, CreateOptions options) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    int failures = 0;
    while (true) {
      List<Entry> walk = walk(comps);
      if (!walk.isEmpty() && !walk.get(walk.size() - 1).isDirectory()) {
        Entry file = walk.get(walk.size() - 1);
        throw new NamespaceException(walk.size() == comps.size()
            ? NamespaceStatus.ALREADY_EXISTS : NamespaceStatus.PARENT_NOT_DIRECTORY,
            file.path(), "is a file");
      }
      if (walk.size() == comps.size()) {
        access.traverse(rootForChecks(), walk, walk.size() - 1);
        return true;
      }
      Entry parent = walk.isEmpty() ? readRoot() : walk.get(walk.size() - 1);
      access.traverse(rootForChecks(), walk, walk.size());
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
              config.bucketsPerDirectory()), null);
      if (made == null && ++failures >= config.maxRetries()) {
        throw conflict(p);
      }
    }
  }

  /**
   * POSIX {@code mkdir(2)}: makes one directory whose parent exists, in one {@code multi}.
   * ALREADY_EXISTS when the name is taken, also by a concurrent {@code mkdir} of the same path
   * (exactly one of them succeeds, so it can serve as a lock between machines); NOT_FOUND when
   * the parent is missing; PARENT_NOT_DIRECTORY when an ancestor is a file. The default layout is
   * {@code options.layout()} or the parent's.
   */
  public FileStatus mkdir(String path, CreateOptions options) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    if (comps.isEmpty()) {
      throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, p, "the root exists");
    }
    for (int attempt = 0; attempt < config.maxRetries(); attempt++) {
      List<Entry> walk = walk(comps);
      Entry lastFound = walk.isEmpty() ? null : walk.get(walk.size() - 1);
      if (walk.size() == comps.size()) {
        access.traverse(rootForChecks(), walk, walk.size() - 1);
        throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, p, "exists");
      }
      if (lastFound != null && !lastFound.isDirectory()) {
        throw new NamespaceException(NamespaceStatus.PARENT_NOT_DIRECTORY, lastFound.path(),
            "is a file");
      }
      if (walk.size() < comps.size() - 1) {
        throw new NamespaceException(NamespaceStatus.NOT_FOUND,
            Names.join(comps.subList(0, comps.size() - 1)), "parent directory not found");
      }
      Entry parent = lastFound == null ? readRoot() : lastFound;
      access.traverse(rootForChecks(), walk, walk.size());
      access.check(parent, AccessChecker.WRITE | AccessChecker.EXECUTE);
      String childPath = Names.child(parent.path(), comps.get(comps.size() - 1));
      CreateOptions resolved = access.resolve(options, parent, childPath, true);
      Layout layout = options.layout() != null ? options.layout() : parent.inode().layout();
      Inode made = createChild(parent, comps.get(comps.size() - 1), childPath,
          id -> Inode.newDirectory(id, System.currentTimeMillis(), resolved, layout,
              config.bucketsPerDirectory()), null);
      if (made != null) {
        return made.status(childPath);
      }
      // the multi was refused: the name was taken meanwhile (the next walk says so), or the
      // parent changed; look again
    }
    throw conflict(p);
  }

  /**
   * Creates a file (one {@code multi}: check the parent's container, create the entry; with
   * overwrite of an existing file also delete the old entry in the same {@code multi}, giving
   * the new file a new id). ALREADY_EXISTS when the path is a directory, or a file and not
   * overwrite; NOT_FOUND when the parent is missing and not {@code createParents};
   * PARENT_NOT_DIRECTORY when an ancestor is a file. The layout is {@code options.layout()} or
   * the parent directory's default.
   */
  public FileStatus create(String path, CreateOptions options) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    if (comps.isEmpty()) {
      throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, p, "is a directory");
    }
    // Without overwrite the name is not read first: the create's multi refuses an existing
    // entry (NODEEXISTS), and only then is it read, for the error. One round trip fewer.
    boolean optimistic = !options.overwrite();
    int n = comps.size();
    for (int attempt = 0; attempt < config.maxRetries(); attempt++) {
      List<Entry> walk = walk(optimistic ? comps.subList(0, n - 1) : comps);
      if (walk.size() < n - 1 || (walk.size() == n - 1 && n > 1
          && !walk.get(n - 2).isDirectory())) {
        Entry lastFound = walk.isEmpty() ? null : walk.get(walk.size() - 1);
        if (lastFound != null && !lastFound.isDirectory()) {
          throw new NamespaceException(NamespaceStatus.PARENT_NOT_DIRECTORY, lastFound.path(),
              "is a file");
        }
        String parentPath = Names.join(comps.subList(0, n - 1));
        if (!options.createParents()) {
          throw new NamespaceException(NamespaceStatus.NOT_FOUND, parentPath,
              "parent directory does not exist");
        }
        mkdirs(parentPath, CreateOptions.directory().withOwner(options.owner(), options.group()));
        continue;
      }
      Entry parent = n == 1 ? readRoot() : walk.get(n - 2);
      Entry existing = walk.size() == n ? walk.get(n - 1) : null;
      access.traverse(rootForChecks(), walk, n - 1);
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
      Layout layout = placer != null && asked.targets().isEmpty()
          ? placer.place(asked, p) : asked;
      CreateOptions resolved = access.resolve(options, parent, p, false);
      Lease lease = options.lease() ? leases.grant() : null;
      Inode made = createChild(parent, comps.get(n - 1), p,
          id -> Inode.newFile(id, System.currentTimeMillis(), resolved, layout, lease), existing);
      if (made != null) {
        if (lease != null) {
          writing.put(made.id(), new Entry(p, parent.inode().id(),
              zn.entry(parent.inode().id(), parent.inode().buckets(), comps.get(n - 1)), made, 0));
        }
        return made.status(p);
      }
      if (optimistic) {
        Entry there = read(parent.inode().id(), parent.inode().buckets(), comps.get(n - 1), p);
        if (there != null) {
          throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, p,
              there.isDirectory() ? "is a directory" : "file exists");
        }
      }
    }
    throw conflict(p);
  }

  /** LEASE_CONFLICT when another client's live session writes the file. */
  private void refuseIfLeasedByOther(Entry file, String p) throws NamespaceException {
    Lease l = file.inode().lease();
    if (l != null && !leases.mine(l) && leases.alive(l)) {
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
      java.util.function.LongFunction<Inode> make, Entry existing) throws NamespaceException {
    long dirId = parent.inode().id();
    int buckets = parent.inode().buckets();
    long id = ids.next();
    Inode inode = make.apply(id);
    String entry = zn.entry(dirId, buckets, name);
    List<Op> ops = new ArrayList<>();
    ops.add(zk.check(zn.container(dirId), 0));
    if (existing != null) {
      ops.add(zk.delete(existing.znode(), existing.zkVersion()));
      ops.addAll(removals.opsFor(existing.inode()));
    }
    int createAt = ops.size();
    ops.add(zk.create(entry, InodeCodec.encode(inode)));
    if (inode.isDirectory()) {
      ops.add(zk.create(zn.container(id), new byte[0]));
    }
    if (inode.lease() != null) {
      ops.add(leases.createRecord(id, entry, path, inode.lease()));
    }
    Zk.Failure f = zk.multi(ops, () -> {
      Entry now = read(dirId, buckets, name, path);
      return now != null && now.inode().id() == id;
    }, path);
    if (f == null) {
      return inode;
    }
    if (f.index() == createAt && f.code() == KeeperException.Code.NONODE) {
      ensureBucket(zn.bucket(dirId, name, buckets));
    }
    return null; // parent gone or detached, entry raced: the re-walk decides
  }

  private void ensureBucket(String bucket) throws NamespaceException {
    try {
      client.create().forPath(bucket);
    } catch (KeeperException.NodeExistsException | KeeperException.NoNodeException e) {
      // made concurrently; or the directory is gone, which the next walk reports
    } catch (Exception e) {
      throw Zk.failure(bucket, "creating an entry bucket", e);
    }
  }

  // ---------------------------------------------------------------- delete

  /**
   * Deletes a file, or a directory: an empty one (or non-recursive) in one {@code multi} that
   * also removes its container and buckets (NOT_EMPTY if it has entries and not {@code
   * recursive}); a non-empty one recursively by detaching it in one {@code multi} (delete its
   * entry, mark its container, add a trash marker) and then deleting the detached subtree
   * (see {@link #purgeTrash()} for what a crash leaves).
   *
   * @return false when the path does not exist, and for the root, which is never deleted
   */
  public boolean delete(String path, boolean recursive) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    if (comps.isEmpty()) {
      return false;
    }
    for (int attempt = 0; attempt < config.maxRetries(); attempt++) {
      List<Entry> walk = walk(comps);
      access.traverse(rootForChecks(), walk, comps.size() - 1);
      if (walk.size() < comps.size()) {
        return false;
      }
      Entry e = walk.get(walk.size() - 1);
      long id = e.inode().id();
      if (access.active()) {
        access.removeFrom(parentOf(walk), e);
        if (e.isDirectory() && recursive) {
          // HDFS wants rwx on every directory of the subtree; we check the top one only
          access.check(e, AccessChecker.READ | AccessChecker.WRITE | AccessChecker.EXECUTE);
        }
      }
      Zk.Applied gone = () -> {
        Entry now = read(e.parentId(), parentBuckets(walk), comps.get(comps.size() - 1), p);
        return now == null || now.inode().id() != id;
      };
      if (!e.isDirectory()) {
        List<Op> ops = new ArrayList<>();
        ops.add(zk.check(zn.container(e.parentId()), 0));
        ops.add(zk.delete(e.znode(), e.zkVersion()));
        ops.addAll(removals.opsFor(e.inode()));
        if (zk.multi(ops, gone, p) == null) {
          return true;
        }
        continue;
      }
      String container = zn.container(id);
      List<String> bucketNames = children(container);
      List<Op> ops = new ArrayList<>();
      ops.add(zk.delete(e.znode(), e.zkVersion()));
      for (String b : bucketNames) {
        ops.add(zk.delete(container + "/" + b, -1));
      }
      ops.add(zk.delete(container, 0));
      Zk.Failure f = zk.multi(ops, gone, p);
      if (f == null) {
        return true;
      }
      boolean bucketNotEmpty = f.code() == KeeperException.Code.NOTEMPTY
          && f.index() > 0 && f.index() < ops.size() - 1;
      if (!bucketNotEmpty) {
        continue; // changed under us (or a new bucket appeared): look again
      }
      if (!recursive) {
        throw new NamespaceException(NamespaceStatus.NOT_EMPTY, p, "directory is not empty");
      }
      byte[] marker = marker(id, p);
      if (zk.multi(List.of(zk.delete(e.znode(), e.zkVersion()),
          zk.setData(container, marker, 0),
          zk.create(zn.trashMarker(id), marker)), gone, p) != null) {
        continue;
      }
      LOG.log(System.Logger.Level.INFO, "deleting {0} (directory {1}): detached",
          p, ZNodes.hexId(id));
      purger.purge(id);
      return true;
    }
    throw conflict(p);
  }

  /**
   * Finishes deleting every detached directory whose trash marker is still there (a delete that
   * crashed after detaching). Safe to run concurrently with anything, by any number of clients.
   *
   * @return how many detached directories were finished
   */
  public int purgeTrash() throws NamespaceException {
    int done = 0;
    for (String hex : children(zn.trash)) {
      purger.purge(Long.parseLong(hex, 16));
      done++;
    }
    return done;
  }

  private int parentBuckets(List<Entry> walk) throws NamespaceException {
    return walk.size() == 1 ? rootBuckets : walk.get(walk.size() - 2).inode().buckets();
  }

  private static byte[] marker(long id, String path) {
    try {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("schema", 1);
      m.put("id", id);
      m.put("path", path);
      m.put("detachedMillis", System.currentTimeMillis());
      return JSON.writeValueAsBytes(m);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  // ---------------------------------------------------------------- rename

  /**
   * Renames (moves) a file or a directory of any size in one {@code multi}: check the versions
   * of every ancestor entry of the source and of the destination's parent (and their
   * containers), delete the source entry, create the destination entry with the same inode.
   *
   * <p>Semantics ({@code filesystem.md}, HDFS's choices where it allows several):
   * <ul>
   *   <li>source missing: NOT_FOUND; source is the root: INVALID_RENAME;
   *   <li>destination is the source (or, after moving into a directory, ends up being it): no-op;
   *   <li>destination is an existing directory: the source moves into it under its own name;
   *       ALREADY_EXISTS if that name is taken;
   *   <li>destination is an existing file: ALREADY_EXISTS (Hadoop returns false);
   *   <li>destination inside the source: INVALID_RENAME;
   *   <li>destination's parent missing: NOT_FOUND; a file: PARENT_NOT_DIRECTORY.
   * </ul>
   *
   * @return the final path of the source
   */
  public String rename(String src, String dst) throws NamespaceException {
    return rename(src, dst, false);
  }

  /**
   * POSIX {@code rename(2)} in one {@code multi}: the source takes exactly the name {@code dst};
   * an existing destination is replaced in the same transaction, so every observer sees either
   * the old destination or the source under its name, never neither: a file replaces a file; a
   * directory replaces an empty directory. A file onto a directory is IS_A_DIRECTORY, a
   * directory onto a file NOT_A_DIRECTORY, onto a non-empty directory NOT_EMPTY. A replaced file
   * is removed as {@link #delete} removes one (its chunks queued for deletion, its open record
   * dropped). The other rules are {@link #rename(String, String)}'s.
   *
   * @return {@code dst}, normalized
   */
  public String renameReplacing(String src, String dst) throws NamespaceException {
    return rename(src, dst, true);
  }

  private String rename(String src, String dst, boolean replace) throws NamespaceException {
    List<String> s = Names.split(src);
    List<String> d = Names.split(dst);
    String sp = Names.join(s);
    if (s.isEmpty()) {
      throw new NamespaceException(NamespaceStatus.INVALID_RENAME, sp, "cannot rename the root");
    }
    boolean destinationRead = false;
    for (int attempt = 0; attempt < config.maxRetries(); attempt++) {
      List<Entry> sw = walk(s);
      Entry root = rootForChecks();
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
      List<Entry> dw = !replace && (destinationRead || d.isEmpty()) ? walk(d)
          : walk(d.subList(0, d.size() - 1));
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
            throw new NamespaceException(NamespaceStatus.PARENT_NOT_DIRECTORY, lastFound.path(),
                "is a file");
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
      int dstBuckets = parentChain.isEmpty() ? rootBuckets
          : parentChain.get(parentChain.size() - 1).inode().buckets();
      Entry replaced = null;
      if (replace) {
        replaced = read(dstDir, dstBuckets, name, tp);
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
      } else if (target != d && read(dstDir, dstBuckets, name, tp) != null) {
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
      String newEntry = zn.entry(dstDir, dstBuckets, name);
      Set<String> checked = new LinkedHashSet<>();
      List<Op> ops = new ArrayList<>();
      for (Entry a : sw.subList(0, sw.size() - 1)) {
        if (checked.add(a.znode())) {
          ops.add(zk.check(a.znode(), a.zkVersion()));
        }
      }
      for (Entry a : parentChain) {
        if (checked.add(a.znode())) {
          ops.add(zk.check(a.znode(), a.zkVersion()));
        }
      }
      for (String c : List.of(zn.container(source.parentId()), zn.container(dstDir))) {
        if (checked.add(c)) {
          ops.add(zk.check(c, 0));
        }
      }
      ops.add(zk.delete(source.znode(), source.zkVersion()));
      int replacedFrom = ops.size();
      if (replaced != null) {
        ops.add(zk.delete(replaced.znode(), replaced.zkVersion()));
        if (replaced.isDirectory()) {
          // empty, or a bucket delete fails NOTEMPTY: its container and buckets go with it
          String container = zn.container(replaced.inode().id());
          for (String b : children(container)) {
            ops.add(zk.delete(container + "/" + b, -1));
          }
          ops.add(zk.delete(container, 0));
        } else {
          ops.addAll(removals.opsFor(replaced.inode()));
        }
      }
      int replacedTo = ops.size();
      int createAt = ops.size();
      ops.add(zk.create(newEntry, InodeCodec.encode(source.inode())));
      long id = source.inode().id();
      if (source.inode().lease() != null) {
        ops.add(leases.moveRecord(id, newEntry, tp, source.inode().lease()));
      }
      int srcBuckets = sw.size() == 1 ? rootBuckets : sw.get(sw.size() - 2).inode().buckets();
      Zk.Failure f = zk.multi(ops, () -> {
        Entry atSource = read(source.parentId(), srcBuckets, s.get(s.size() - 1), sp);
        Entry atTarget = read(dstDir, dstBuckets, name, tp);
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
        ensureBucket(zn.bucket(dstDir, name, dstBuckets));
      }
      if (f.index() == createAt && f.code() == KeeperException.Code.NODEEXISTS) {
        destinationRead = true; // it exists: read it and apply the rules
      }
    }
    throw conflict(sp);
  }

  private static boolean isPrefix(List<String> prefix, List<String> of) {
    return of.size() > prefix.size() && of.subList(0, prefix.size()).equals(prefix);
  }

  // ---------------------------------------------------------------- attribute updates

  /**
   * Sets the times; -1 leaves a time unchanged. One versioned {@code setData} of the entry.
   */
  public FileStatus setTimes(String path, long mtime, long atime) throws NamespaceException {
    if (mtime < -1 || atime < -1) {
      throw new IllegalArgumentException("times (" + mtime + ", " + atime + ") must be >= -1");
    }
    return update(path, e -> access.check(e, AccessChecker.WRITE),
        i -> i.withTimes(mtime == -1 ? i.mtime() : mtime, atime == -1 ? i.atime() : atime));
  }

  /**
   * {@link #setTimes} with the rule of POSIX {@code utimensat(2)} (the FUSE mount's; the Hadoop
   * API keeps HDFS's WRITE): explicit times need the owner (or a superuser), so the owner of a
   * read-only file may set them; {@code touch} (both times "now") needs the owner or WRITE.
   */
  public FileStatus setTimesPosix(String path, long mtime, long atime, boolean touch)
      throws NamespaceException {
    if (mtime < -1 || atime < -1) {
      throw new IllegalArgumentException("times (" + mtime + ", " + atime + ") must be >= -1");
    }
    return update(path, e -> {
      if (!touch || !access.caller().user().equals(e.inode().owner())) {
        if (touch) {
          access.check(e, AccessChecker.WRITE);
        } else {
          access.owner(e);
        }
      }
    }, i -> i.withTimes(mtime == -1 ? i.mtime() : mtime, atime == -1 ? i.atime() : atime));
  }

  /**
   * Clears set-user-ID and/or set-group-ID bits ({@code bits}, within 06000) of a file, as a
   * write or truncate by someone who may write it does on Linux (the kernel asks the FUSE mount
   * for it): the owner or WRITE on the file, not ownership alone.
   */
  public FileStatus clearSetIdBits(String path, int bits) throws NamespaceException {
    if (bits == 0 || (bits & ~(AccessChecker.SETUID | AccessChecker.SETGID)) != 0) {
      throw new IllegalArgumentException("bits (" + Integer.toOctalString(bits)
          + ") must be set-user-ID and/or set-group-ID (06000)");
    }
    return update(path, e -> {
      if (!access.caller().user().equals(e.inode().owner())) {
        access.check(e, AccessChecker.WRITE);
      }
    }, i -> i.withPermission(i.perm() & ~bits));
  }

  /** Sets the mode bits (0..07777): the owner or a superuser. */
  public FileStatus setPermission(String path, int permission) throws NamespaceException {
    if (permission < 0 || permission > 07777) {
      throw new IllegalArgumentException("permission (" + Integer.toOctalString(permission)
          + ") must be in 0..07777");
    }
    return update(path, access::owner, i -> i.withPermission(permission));
  }

  /**
   * Sets the owner and/or group; null leaves one unchanged. Only the owner or a superuser; giving
   * the inode to another user needs a superuser; a user may set only one of its own groups.
   */
  public FileStatus setOwner(String path, String owner, String group)
      throws NamespaceException {
    for (String v : Arrays.asList(owner, group)) {
      if (v != null && (v.isEmpty() || v.length() > 256)) {
        throw new IllegalArgumentException("owner/group (" + v + ") must be 1..256 characters");
      }
    }
    return update(path, e -> {
      // HDFS's rule: the owner (or a superuser) only; a user may name itself as owner and
      // one of its own groups as group
      access.owner(e);
      if (owner != null && !owner.equals(access.caller().user())) {
        access.superuser(e.path(), "change the owner to " + owner);
      }
      if (group != null && access.active()) {
        if (!access.caller().inGroup(group)) {
          throw new NamespaceException(NamespaceStatus.PERMISSION_DENIED, e.path(),
              "Permission denied: user=" + access.caller().user() + " is not in group " + group);
        }
      }
    }, i -> i.withOwner(owner == null ? i.owner() : owner, group == null ? i.group() : group));
  }

  /**
   * Sets a directory's default layout (what new children inherit; existing files keep theirs),
   * or the layout of a file that has no data yet (length and version 0), such as placement's
   * target list right after create. IS_A_DIRECTORY is never thrown here; a file with data:
   * CONFLICT. Needs WRITE on the path.
   *
   * <p>With placement ({@link #withPlacement}) the layout is first checked against the cluster
   * ({@link LayoutPlacer#check}: targets and pool that exist, a stripe count the pool can
   * fill), and a file's missing targets are placed, so it is born writable as at create.
   *
   * @throws IllegalArgumentException naming the value the cluster cannot satisfy
   */
  public FileStatus setLayout(String path, Layout layout) throws NamespaceException {
    Objects.requireNonNull(layout, "layout");
    if (placer != null) {
      placer.check(layout, path);
    }
    return update(path, e -> access.check(e, AccessChecker.WRITE), i -> {
      if (!i.isDirectory() && (i.length() != 0 || i.version() != 0)) {
        throw new NamespaceException(NamespaceStatus.CONFLICT, path,
            "the layout of a file with data cannot change");
      }
      boolean place = placer != null && !i.isDirectory()
          && layout.targets().size() < layout.stripeCount();
      return i.withLayout(place ? placer.place(layout, path) : layout);
    });
  }

  /**
   * Sets a file's length and increments its version, if its id is {@code fileId} (the file was
   * not replaced) and its version is {@code expectedVersion} (-1: any). What a writer commits
   * at hflush/hsync, so readers see the new length; the version check makes a retried commit
   * land once. The caller must hold the file's lease ({@link #create}, {@link #append}).
   *
   * @throws NamespaceException NOT_FOUND (also when the id differs), IS_A_DIRECTORY, CONFLICT
   *     when the version is not the expected one, LEASE_EXPIRED when this client's session no
   *     longer holds the lease
   */
  public FileStatus setLength(String path, long fileId, long expectedVersion, long length)
      throws NamespaceException {
    return setLength(path, fileId, expectedVersion, length, -1);
  }

  /**
   * {@link #setLength}, stamping the modification time {@code mtime} (-1: now) in the same
   * commit: a writer keeping a time set while it had the file open ({@code cp -p}, {@code tar
   * x}), so no reader ever sees "now" in between.
   */
  public FileStatus setLength(String path, long fileId, long expectedVersion, long length,
      long mtime) throws NamespaceException {
    checkCommit(length, mtime);
    return commit(path, fileId, i -> {
      checkWriter(i, path, fileId, expectedVersion);
      return i.withLength(length, mtime);
    }, (before, after) -> List.of(leaseAlive(before)));
  }

  private static void checkCommit(long length, long mtime) {
    if (length < 0) {
      throw new IllegalArgumentException("length (" + length + ") must be >= 0");
    }
    if (mtime < -1) {
      throw new IllegalArgumentException("mtime (" + mtime + ") must be >= -1");
    }
  }

  /**
   * Closes a file this client is writing: sets its final length (version + 1), clears the
   * lease and removes the open record, in one {@code multi}. Readers see the length from then
   * on. Same checks as {@link #setLength} ({@code expectedVersion} -1: any).
   */
  public FileStatus complete(String path, long fileId, long expectedVersion, long length)
      throws NamespaceException {
    return complete(path, fileId, expectedVersion, length, -1);
  }

  /** {@link #complete}, stamping the modification time {@code mtime} (-1: now) as it closes. */
  public FileStatus complete(String path, long fileId, long expectedVersion, long length,
      long mtime) throws NamespaceException {
    checkCommit(length, mtime);
    return commit(path, fileId, i -> {
      checkWriter(i, path, fileId, expectedVersion);
      return i.withLength(length, mtime).withLease(null);
    }, (before, after) -> List.of(leaseAlive(before), leases.deleteRecord(before.id())));
  }

  /**
   * A check, inside a writer's commit, that the session holding the lease still exists (its
   * ephemeral marker). {@link #checkWriter} compares the lease with this client's session id as
   * it reads it; a session that expired just then is replaced by Curator under the same client,
   * and without this check one commit could still land for the dead session's writer.
   */
  private Op leaseAlive(Inode before) {
    return zk.check(zn.sessionMarker(before.lease().session()), -1);
  }

  /**
   * A writer's update of its file. The file is found through its open record (its entry znode),
   * not its path, so a writer keeps writing a file that was renamed meanwhile, as in HDFS; a file
   * without an open record is looked up by path (and then refused by the writer checks).
   */
  private FileStatus commit(String path, long fileId, Change change, Also also)
      throws NamespaceException {
    String p = Names.join(Names.split(path));
    for (int attempt = 0; attempt < config.maxRetries(); attempt++) {
      Entry e = attempt == 0 ? writing.remove(fileId) : null;
      Inode next = null;
      if (e != null) {
        try {
          next = change.apply(e.inode());
        } catch (NamespaceException stale) {
          e = null; // judged on what may be stale: read it and judge again
        }
      }
      if (e == null) {
        e = writerEntry(fileId, p);
        if (e == null) {
          e = findChecked(Names.split(p), p, 0);
        }
        next = change.apply(e.inode());
      }
      if (write(e, next, also.ops(e.inode(), next), p)) {
        if (next.lease() != null) {
          writing.put(fileId, new Entry(e.path(), e.parentId(), e.znode(), next,
              e.zkVersion() + 1));
        }
        return next.status(e.path());
      }
    }
    throw conflict(p);
  }

  /** The entry of an open file through its open record; null when it has none. */
  private Entry writerEntry(long fileId, String p) throws NamespaceException {
    String record = zn.openRecord(fileId);
    Leases.OpenFile open;
    try {
      open = Leases.decode(client.getData().forPath(record), record);
    } catch (KeeperException.NoNodeException ex) {
      return null;
    } catch (NamespaceException ex) {
      throw ex;
    } catch (Exception ex) {
      throw Zk.failure(p, "reading the open record of file " + ZNodes.hexId(fileId), ex);
    }
    Stat stat = new Stat();
    try {
      byte[] data = client.getData().storingStatIn(stat).forPath(open.entry());
      return new Entry(open.path(), 0, open.entry(), InodeCodec.decode(data, p),
          stat.getVersion());
    } catch (KeeperException.NoNodeException ex) {
      return null; // removed meanwhile: the path lookup reports it
    } catch (NamespaceException ex) {
      throw ex;
    } catch (Exception ex) {
      throw Zk.failure(p, "reading " + open.entry(), ex);
    }
  }

  /** The checks of a writer's commit: the same file, the expected version, our lease. */
  private void checkWriter(Inode i, String path, long fileId, long expectedVersion)
      throws NamespaceException {
    if (i.isDirectory()) {
      throw new NamespaceException(NamespaceStatus.IS_A_DIRECTORY, path, "not a file");
    }
    if (i.id() != fileId) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, path,
          "file " + fileId + " was replaced by " + i.id());
    }
    if (!leases.mine(i.lease())) {
      throw new NamespaceException(NamespaceStatus.LEASE_EXPIRED, path, i.lease() == null
          ? "the file is closed (its lease was recovered or it was never opened for writing)"
          : "the lease is held by " + i.lease().client() + " (session "
              + Long.toHexString(i.lease().session()) + "), not by this client's session");
    }
    if (expectedVersion != -1 && i.version() != expectedVersion) {
      throw new NamespaceException(NamespaceStatus.CONFLICT, path, "version is " + i.version()
          + ", expected " + expectedVersion);
    }
  }

  /**
   * Opens an existing, closed file for appending: takes its lease (WRITE on the file).
   * LEASE_CONFLICT when it is open for writing: by a live client, or by a dead one whose lease
   * awaits {@link #recoverLease}.
   */
  public FileStatus append(String path) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    for (int attempt = 0; attempt < config.maxRetries(); attempt++) {
      Entry e = findChecked(comps, p, AccessChecker.WRITE);
      if (e.isDirectory()) {
        throw new NamespaceException(NamespaceStatus.IS_A_DIRECTORY, p, "cannot append to a directory");
      }
      Inode i = e.inode();
      if (i.lease() != null) {
        throw new NamespaceException(NamespaceStatus.LEASE_CONFLICT, p, leases.alive(i.lease())
            ? "open for writing by " + i.lease().client()
            : "its writer " + i.lease().client() + " died; recover the lease first");
      }
      // a new lease epoch: a new writer generation, which the targets fence older writers by
      Inode next = i.withLease(leases.grant()).withNextGeneration();
      if (write(e, next, List.of(leases.createRecord(i.id(), e.znode(), p, next.lease())), p)) {
        writing.put(i.id(), new Entry(p, e.parentId(), e.znode(), next, e.zkVersion() + 1));
        return next.status(p);
      }
    }
    throw conflict(p);
  }

  /**
   * Lease recovery (Hadoop's {@code LeaseRecoverable.recoverLease}): closes a file whose writer
   * is gone, or revokes a live writer's lease, as HDFS does. The file's length becomes the
   * larger of its last committed length and what the storage targets hold ({@code probe}), its
   * version goes up, the lease and the open record go, in one {@code multi}. A revoked writer
   * fails with LEASE_EXPIRED at its next commit. Needs WRITE on the file.
   *
   * @return true: the file is closed (also when it already was)
   */
  public boolean recoverLease(String path, LengthProbe probe) throws NamespaceException {
    Objects.requireNonNull(probe, "probe");
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    for (int attempt = 0; attempt < config.maxRetries(); attempt++) {
      Entry e = findChecked(comps, p, AccessChecker.WRITE);
      if (e.isDirectory()) {
        throw new NamespaceException(NamespaceStatus.IS_A_DIRECTORY, p, "not a file");
      }
      if (e.inode().lease() == null) {
        return true;
      }
      if (recover(e, p, probe)) {
        return true;
      }
    }
    throw conflict(p);
  }

  /** Whether the file is closed (no lease), Hadoop's {@code isFileClosed}. */
  public boolean isFileClosed(String path) throws NamespaceException {
    FileStatus f = getStatus(path);
    if (f.isDirectory()) {
      throw new NamespaceException(NamespaceStatus.IS_A_DIRECTORY, f.path(), "not a file");
    }
    return !f.isOpenForWrite();
  }

  /**
   * Recovers every file whose writer's session has ended (what the cluster manager runs
   * periodically); live leases are left alone. Open records whose file no longer carries the
   * lease are dropped. A file whose recovery fails (a target that cannot answer: UNAVAILABLE;
   * missing data: DATA_MISSING) is logged and skipped, then retried after 1, 2, 4 … up to
   * {@value #MAX_RECOVERY_SKIP} rounds; the other files are recovered regardless.
   *
   * @return how many files were recovered
   */
  public int recoverExpiredLeases(LengthProbe probe) throws NamespaceException {
    synchronized (recoveryBackoff) { // one round at a time: the backoff counts rounds
      return recoverExpiredLeasesRound(probe);
    }
  }

  private int recoverExpiredLeasesRound(LengthProbe probe) throws NamespaceException {
    int recovered = 0;
    java.util.Set<Long> open = new java.util.HashSet<>();
    for (Leases.OpenFile f : leases.openFiles()) {
      open.add(f.id());
      Stat stat = new Stat();
      Inode inode;
      try {
        inode = InodeCodec.decode(client.getData().storingStatIn(stat).forPath(f.entry()),
            f.path());
      } catch (KeeperException.NoNodeException ex) {
        inode = null;
      } catch (NamespaceException ex) {
        throw ex;
      } catch (Exception ex) {
        throw Zk.failure(f.entry(), "reading an open file's entry", ex);
      }
      if (inode == null || inode.id() != f.id() || inode.lease() == null
          || inode.lease().session() != f.session()) {
        LOG.log(System.Logger.Level.WARNING, "dropping stale open record of file {0} ({1})",
            ZNodes.hexId(f.id()), f.path());
        leases.dropStale(f.id());
        continue;
      }
      if (leases.alive(inode.lease())) {
        continue;
      }
      if (backingOff(f.id())) {
        continue;
      }
      Entry e = new Entry(f.path(), 0, f.entry(), inode, stat.getVersion());
      try {
        if (recover(e, f.path(), probe)) {
          recovered++;
        }
        recoveryBackoff.remove(f.id());
      } catch (NamespaceException ex) {
        // one file whose targets cannot answer (or whose data is missing) must not keep every
        // file after it open: note it, back off for that file only, go on with the others
        int[] b = recoveryBackoff.computeIfAbsent(f.id(), k -> new int[2]);
        b[1] = Math.min(MAX_RECOVERY_SKIP, Math.max(1, b[1] * 2));
        b[0] = b[1];
        LOG.log(System.Logger.Level.WARNING, "lease recovery of {0} (file {1}) failed ({2}: {3});"
            + " retrying it after {4} rounds", f.path(), ZNodes.hexId(f.id()), ex.status(),
            ex.getMessage(), b[1]);
      }
    }
    recoveryBackoff.keySet().retainAll(open);
    return recovered;
  }

  /** Whether recovery of {@code fileId} failed lately and waits this round out (counts down). */
  private boolean backingOff(long fileId) {
    int[] b = recoveryBackoff.get(fileId);
    if (b == null || b[0] == 0) {
      return false;
    }
    b[0]--;
    return true;
  }

  /**
   * One attempt at recovering the file of {@code e}; false when its record changed meanwhile.
   *
   * <ol>
   *   <li>Probe: the stored prefix. Less than the committed length: refused (DATA_MISSING).
   *   <li>Fence at the next generation ({@link LengthProbe#fence}): every target of the file
   *       refuses the old writer from then on, and the chunks at or past the prefix's end are
   *       deleted (stale chunks of this writer, of an earlier one, of an interrupted truncate,
   *       which a later writer's prefix would otherwise bring back). The fence answers the
   *       prefix again, as stored once no old writer can add to it.
   *   <li>Commit that length, the new generation, no lease, in one versioned write.
   * </ol>
   */
  private boolean recover(Entry e, String p, LengthProbe probe) throws NamespaceException {
    Inode i = e.inode();
    long stored;
    Inode fenced = i.withNextGeneration();
    try {
      stored = probe.length(i.status(p));
    } catch (java.io.IOException ex) {
      throw unprobed(p, ex);
    }
    refuseHole(i, p, stored);
    try {
      stored = probe.fence(fenced.status(p), stored);
    } catch (java.io.IOException ex) {
      throw unprobed(p, ex);
    }
    refuseHole(i, p, stored);
    long length = stored;
    Inode next = fenced.withLength(length).withLease(null);
    if (!write(e, next, List.of(leases.deleteRecord(i.id())), p)) {
      return false;
    }
    LOG.log(System.Logger.Level.INFO, "recovered the lease of {0} (file {1}, writer {2}): "
        + "length {3}, writer generation {4}", p, ZNodes.hexId(i.id()), i.lease().client(),
        length, next.generation());
    return true;
  }

  private static NamespaceException unprobed(String p, java.io.IOException ex) {
    return new NamespaceException(NamespaceStatus.UNAVAILABLE, p, "lease recovery could not"
        + " read or fence the file's chunks on its targets: " + ex.getMessage(), ex);
  }

  /** DATA_MISSING, loudly, when the targets hold less than the committed length. */
  private static void refuseHole(Inode i, String p, long stored) throws NamespaceException {
    if (stored >= i.length()) {
      return;
    }
    // the committed length promises bytes no target holds: closing the file there would hide
    // the hole from every reader until one trips on it; closing it at the stored length would
    // silently drop acknowledged bytes. Leave it open and say so.
    LOG.log(System.Logger.Level.ERROR, "lease recovery of {0} (file {1}, writer {2}) refused:"
        + " the targets hold {3} bytes but {4} are committed; acknowledged data is missing,"
        + " the file stays open", p, ZNodes.hexId(i.id()), i.lease().client(), stored,
        i.length());
    throw new NamespaceException(NamespaceStatus.DATA_MISSING, p, "lease recovery refused: "
        + "the targets hold " + stored + " bytes of file " + ZNodes.hexId(i.id())
        + " but its committed length is " + i.length() + "; the file stays open");
  }

  /** Sets one extended attribute ({@code user.}, {@code trusted.}, ... namespaces). */
  public FileStatus setXAttr(String path, String name, byte[] value, XAttrMode mode)
      throws NamespaceException {
    checkXAttrName(name);
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(mode, "mode");
    byte[] copy = value.clone();
    return update(path, e -> xattrAccess(e, name), i -> {
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

  /** Removes one extended attribute; NOT_FOUND if it does not exist. */
  public FileStatus removeXAttr(String path, String name) throws NamespaceException {
    checkXAttrName(name);
    return update(path, e -> xattrAccess(e, name), i -> {
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

  /** A change of one inode's record. */
  @FunctionalInterface
  private interface Change {
    Inode apply(Inode current) throws NamespaceException;
  }

  /** The permission check of an update, given the entry it is about to change. */
  @FunctionalInterface
  private interface Guard {
    void check(Entry current) throws NamespaceException;
  }

  /** Ops that commit together with an update (open records). */
  @FunctionalInterface
  private interface Also {
    List<Op> ops(Inode before, Inode after);
  }

  private FileStatus update(String path, Guard guard, Change change) throws NamespaceException {
    return update(path, guard, change, (before, after) -> List.of());
  }

  /** Read, check, change, versioned write; re-read and re-apply on a version conflict. */
  private FileStatus update(String path, Guard guard, Change change, Also also)
      throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    for (int attempt = 0; attempt < config.maxRetries(); attempt++) {
      Entry e = findChecked(comps, p, 0);
      guard.check(e);
      Inode next = change.apply(e.inode());
      if (write(e, next, also.ops(e.inode(), next), p)) {
        return next.status(p);
      }
    }
    throw conflict(p);
  }

  /**
   * Writes {@code next} over the entry read as {@code e} (versioned), with {@code more} ops in
   * the same {@code multi}.
   *
   * @return false when the entry changed since it was read (the caller reads again)
   */
  private boolean write(Entry e, Inode next, List<Op> more, String p) throws NamespaceException {
    byte[] data = InodeCodec.encode(next);
    if (data.length > InodeCodec.MAX_BYTES) {
      throw new NamespaceException(NamespaceStatus.TOO_LARGE, p, "inode record of "
          + data.length + " bytes, more than " + InodeCodec.MAX_BYTES);
    }
    int expected = e.zkVersion();
    List<Op> ops = new ArrayList<>(1 + more.size());
    ops.add(zk.setData(e.znode(), data, expected));
    ops.addAll(more);
    Zk.Failure f = zk.multi(ops, () -> {
      Stat stat = new Stat();
      byte[] now = client.getData().storingStatIn(stat).forPath(e.znode());
      return stat.getVersion() == expected + 1 && Arrays.equals(now, data);
    }, p);
    return f == null;
  }

  // ---------------------------------------------------------------- lifecycle

  /** Marks this namespace closed; the Curator client stays open (the caller owns it). */
  @Override
  public void close() {
    closed.set(true);
    gate.unregister();
    cache.close();
  }

  /** The settings this namespace was opened with. */
  public NamespaceConfig config() {
    return config;
  }

  // ---------------------------------------------------------------- walking

  /** The entry at a path, or NOT_FOUND (also when a component on the way is a file). */
  /**
   * The entry at a path after the permission checks: EXECUTE on every directory above it (also
   * before reporting NOT_FOUND, as HDFS), then {@code bits} on the entry itself.
   */
  private Entry findChecked(List<String> comps, String p, int bits) throws NamespaceException {
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
  private Entry rootForChecks() throws NamespaceException {
    return access.active() ? readRoot() : null;
  }

  /** The directory holding the last entry of a walk (the root for a one-component walk). */
  private Entry parentOf(List<Entry> walk) throws NamespaceException {
    return walk.size() == 1 ? readRoot() : walk.get(walk.size() - 2);
  }

  private Entry find(List<String> comps, String p) throws NamespaceException {
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
   * Reads the entries of the components from the root down, one {@code getData} each, stopping
   * after the first missing component or the first file.
   */
  private List<Entry> walk(List<String> comps) throws NamespaceException {
    if (closed.get()) {
      throw new IllegalStateException("namespace closed");
    }
    gate.await(comps.isEmpty() ? "/" : comps.get(0));
    List<Entry> out = new ArrayList<>(comps.size());
    long dirId = ZNodes.ROOT_ID;
    int buckets = rootBuckets;
    String path = "/";
    for (String name : comps) {
      String p = Names.child(path, name);
      Entry e = read(dirId, buckets, name, p);
      if (e == null) {
        break;
      }
      out.add(e);
      if (!e.isDirectory()) {
        break;
      }
      dirId = e.inode().id();
      buckets = e.inode().buckets();
      path = p;
    }
    return out;
  }

  /** The entry {@code name} of a directory (from the {@link EntryCache}), or null if none. */
  private Entry read(long dirId, int buckets, String name, String path)
      throws NamespaceException {
    String z = zn.entry(dirId, buckets, name);
    EntryCache.Cached c = cache.read(z, path);
    return c == null ? null : new Entry(path, dirId, z, c.inode(), c.version());
  }

  private Entry readRoot() throws NamespaceException {
    if (closed.get()) {
      throw new IllegalStateException("namespace closed");
    }
    EntryCache.Cached c = cache.read(zn.rootInode, "/");
    if (c == null) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, "/", "the root record "
          + zn.rootInode + " is missing");
    }
    return new Entry("/", 0, zn.rootInode, c.inode(), c.version());
  }

  private List<String> children(String znode) throws NamespaceException {
    try {
      return client.getChildren().forPath(znode);
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (Exception e) {
      throw Zk.failure(znode, "listing " + znode, e);
    }
  }

  private NamespaceException conflict(String p) {
    return new NamespaceException(NamespaceStatus.CONFLICT, p,
        "gave up after " + config.maxRetries() + " attempts under contention");
  }
}
