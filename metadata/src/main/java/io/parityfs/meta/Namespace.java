package io.parityfs.meta;

import java.io.Closeable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;

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
 *   <li>operations are checked against the POSIX permission bits, owner and group of the entries
 *       they touch, for the {@link Caller} this namespace acts for ({@link #as}), with HDFS's
 *       rules (EXECUTE on every directory above a path, the sticky bit, a superuser passes
 *       every check); {@code permissions} off in the {@link NamespaceConfig}: not at all.
 * </ul>
 *
 * Errors are {@link NamespaceException} with a {@link NamespaceStatus}; caller mistakes
 * (negative length, bad page size, bad xattr name) are {@link IllegalArgumentException}.
 * Thread-safe. {@link #close()} does not close the Curator client.
 */
public final class Namespace implements Closeable {
  private final NamespaceCore core;
  /** The lookup cache of {@link #core}, for tests. */
  final EntryCache cache;
  private final AccessChecker access;
  /** Chooses the targets of new files ({@link #withPlacement}); null: none. */
  private final LayoutPlacer placer;
  private final EntryWalker walker;
  private final Reads reads;
  private final Creates creates;
  private final Deletes deletes;
  private final Rename renames;
  private final Updates updates;
  private final WriterCommits commits;
  private final XAttrs xattrs;

  /** A view of {@code core} acting for the caller of {@code access}, placing with placer. */
  private Namespace(NamespaceCore core, AccessChecker access, LayoutPlacer placer) {
    this.core = core;
    this.cache = core.cache;
    this.access = access;
    this.placer = placer;
    this.walker = new EntryWalker(core, access);
    this.reads = new Reads(core, walker);
    this.creates = new Creates(core, walker, placer);
    this.deletes = new Deletes(core, walker);
    this.renames = new Rename(core, walker);
    this.updates = new Updates(core, walker, placer);
    this.commits = new WriterCommits(core, walker);
    this.xattrs = new XAttrs(core, walker, updates);
  }

  /**
   * This namespace acting for {@code caller}: every operation is checked against the caller's
   * user and groups, and creates get its owner and umask. {@link #open} returns a namespace
   * acting for the configured superuser (a trusted service: the cluster manager, admin tools);
   * clients act through a view. Views are cheap and share the session, caches and leases of
   * this namespace; closing any of them closes all.
   */
  public Namespace as(Caller caller) {
    return new Namespace(core, new AccessChecker(core.config,
        Objects.requireNonNull(caller, "caller")), placer);
  }

  /**
   * This namespace choosing the targets of every new file whose layout names none, with {@code
   * placer}, inside {@link #create} (so the file is born with its targets, in the create's one
   * {@code multi}). Without it, a new file's target list stays as the layout gives it.
   */
  public Namespace withPlacement(LayoutPlacer placer) {
    return new Namespace(core, access, Objects.requireNonNull(placer, "placer"));
  }

  /**
   * Checks every id this namespace (and every view of it) hands out against {@code
   * highestFileId}, a live view of the highest file id the storage targets advertise (e.g.
   * {@code TargetRegistry::highestFileId}): an id at or below it is never used, the counter is
   * raised past it (see {@link IdAllocator}). Without it, that is checked only when a block of
   * ids is taken, so a target registering later is seen at the next block.
   */
  public void checkIdsAgainst(LongSupplier highestFileId) {
    core.ids.checkAgainst(Objects.requireNonNull(highestFileId, "highestFileId"));
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
    NamespaceCore core = NamespaceFormat.open(client, config);
    return new Namespace(core,
        new AccessChecker(config, Caller.of(config.superuser(), config.superGroup())), null);
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
    return NamespaceFormat.formatUnlessPresent(client, config);
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
    return reads.getStatus(path);
  }

  /**
   * The status of a file about to be read: as {@link #getStatus} and READ on the file (Hadoop's
   * {@code open}). IS_A_DIRECTORY for a directory.
   */
  public FileStatus openForRead(String path) throws NamespaceException {
    return reads.openForRead(path);
  }

  /** Whether the path exists (EXECUTE on the directories above it). */
  public boolean exists(String path) throws NamespaceException {
    return reads.exists(path);
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
    return reads.list(path, after, limit);
  }

  /** Bucket name lists the lister read from ZooKeeper (its cache misses), for tests. */
  long bucketReads() {
    return core.lister.bucketReads();
  }

  /** Every entry of a directory (pages of {@code maxPageSize}); for small directories and tests. */
  public List<FileStatus> listAll(String path) throws NamespaceException {
    return reads.listAll(path);
  }

  /**
   * The extended attributes of a path, by name: READ on it; a non-superuser sees only the
   * {@code user.} and {@code security.} namespaces (as HDFS).
   */
  public Map<String, byte[]> getXAttrs(String path) throws NamespaceException {
    return xattrs.getXAttrs(path);
  }

  /** One extended attribute; NOT_FOUND if the path or the attribute does not exist. */
  public byte[] getXAttr(String path, String name) throws NamespaceException {
    return xattrs.getXAttr(path, name);
  }

  /**
   * Waits until this session has seen every write committed before the call (ZooKeeper {@code
   * sync}); reads after it are as fresh as a write.
   */
  public void sync() throws NamespaceException {
    core.sync();
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
    return creates.mkdirs(path, options);
  }

  /**
   * POSIX {@code mkdir(2)}: makes one directory whose parent exists, in one {@code multi}.
   * ALREADY_EXISTS when the name is taken, also by a concurrent {@code mkdir} of the same path
   * (exactly one of them succeeds, so it can serve as a lock between machines); NOT_FOUND when
   * the parent is missing; PARENT_NOT_DIRECTORY when an ancestor is a file. The default layout is
   * {@code options.layout()} or the parent's.
   */
  public FileStatus mkdir(String path, CreateOptions options) throws NamespaceException {
    return creates.mkdir(path, options);
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
    return creates.create(path, options);
  }

  /**
   * Creates a symbolic link at {@code path} to {@code target} (one {@code multi}, as {@link
   * #create} without overwrite): the target is kept as given, 1 to 4,095 bytes without NUL,
   * relative to the link's directory unless absolute, and need not exist. The link is owned by
   * {@code options}' owner and group (the caller's by default), mode 0777; {@code
   * options.createParents()} makes missing parents. ALREADY_EXISTS when the path exists (a link
   * is never replaced); INVALID_PATH for a bad target.
   *
   * <p>The namespace never follows links: {@link #getStatus} and {@link #list} show a link as
   * itself ({@link FileStatus#isSymlink}); a link met on the way to a path is UNRESOLVED_LINK,
   * as is {@link #openForRead}, {@link #append}, {@link #setLayout} and an overwriting {@link
   * #create} of a link, for the caller to resolve (the FUSE kernel resolves links itself;
   * the Hadoop client follows them, docs/metadata.md).
   */
  public FileStatus createSymlink(String target, String path, CreateOptions options)
      throws NamespaceException {
    return creates.createSymlink(target, path, options);
  }

  /** The target of the symbolic link at {@code path}; INVALID_PATH when it is not a link. */
  public String readLink(String path) throws NamespaceException {
    FileStatus s = getStatus(path);
    if (!s.isSymlink()) {
      throw new NamespaceException(NamespaceStatus.INVALID_PATH, s.path(),
          "is not a symbolic link");
    }
    return s.linkTarget();
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
    return deletes.delete(path, recursive);
  }

  /**
   * Finishes deleting every detached directory whose trash marker is still there (a delete that
   * crashed after detaching). Safe to run concurrently with anything, by any number of clients.
   *
   * @return how many detached directories were finished
   */
  public int purgeTrash() throws NamespaceException {
    return deletes.purgeTrash();
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
    return renames.rename(src, dst, false);
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
    return renames.rename(src, dst, true);
  }

  // ---------------------------------------------------------------- attribute updates

  /**
   * Sets the times; -1 leaves a time unchanged. One versioned {@code setData} of the entry.
   */
  public FileStatus setTimes(String path, long mtime, long atime) throws NamespaceException {
    return updates.setTimes(path, mtime, atime);
  }

  /**
   * {@link #setTimes} with the rule of POSIX {@code utimensat(2)} (the FUSE mount's; the Hadoop
   * API keeps HDFS's WRITE): explicit times need the owner (or a superuser), so the owner of a
   * read-only file may set them; {@code touch} (both times "now") needs the owner or WRITE.
   */
  public FileStatus setTimesPosix(String path, long mtime, long atime, boolean touch)
      throws NamespaceException {
    return updates.setTimesPosix(path, mtime, atime, touch);
  }

  /**
   * Clears set-user-ID and/or set-group-ID bits ({@code bits}, within 06000) of a file, as a
   * write or truncate by someone who may write it does on Linux (the kernel asks the FUSE mount
   * for it): the owner or WRITE on the file, not ownership alone.
   */
  public FileStatus clearSetIdBits(String path, int bits) throws NamespaceException {
    return updates.clearSetIdBits(path, bits);
  }

  /** Sets the mode bits (0..07777): the owner or a superuser. */
  public FileStatus setPermission(String path, int permission) throws NamespaceException {
    return updates.setPermission(path, permission);
  }

  /**
   * Sets the owner and/or group; null leaves one unchanged. Only the owner or a superuser; giving
   * the inode to another user needs a superuser; a user may set only one of its own groups.
   */
  public FileStatus setOwner(String path, String owner, String group)
      throws NamespaceException {
    return updates.setOwner(path, owner, group);
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
    return updates.setLayout(path, layout);
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
    return commits.setLength(path, fileId, expectedVersion, length, mtime, Repairs.NONE, null);
  }

  /**
   * {@link #setLength(String, long, long, long, long)} that also adds {@code stale} to the
   * file's repair record, in the same write: the members this writer could not store since its
   * last commit, because their targets were down (docs/across-nodes.md §3). No reader sees the
   * new length without the record.
   *
   * @throws NamespaceException also TOO_LARGE when the record would pass {@link
   *     Repairs#MAX_RANGES} ranges
   */
  public FileStatus setLength(String path, long fileId, long expectedVersion, long length,
      long mtime, Repairs stale) throws NamespaceException {
    return commits.setLength(path, fileId, expectedVersion, length, mtime, stale, null);
  }

  /**
   * {@link #setLength(String, long, long, long, long, Repairs)} that also sets the file's hole
   * record to {@code holes} (null: keeps it), in the same write: a sparse file's groups never
   * stored, which readers serve as zeros ({@link Holes}). Groups past the length are dropped.
   *
   * @throws NamespaceException also TOO_LARGE past {@link Holes#MAX_RANGES} ranges
   */
  public FileStatus setLength(String path, long fileId, long expectedVersion, long length,
      long mtime, Repairs stale, Holes holes) throws NamespaceException {
    return commits.setLength(path, fileId, expectedVersion, length, mtime, stale, holes);
  }

  /**
   * Takes {@code done} out of the repair record of a closed file, once its stale members are
   * stored again (catch-up, re-protection), if the file is still at {@code expectedVersion} and
   * writer {@code generation}: nothing was written since the repairer read it.
   *
   * @throws NamespaceException CONFLICT when it was written since, LEASE_CONFLICT when it is
   *     open for writing, NOT_FOUND when it is gone or was replaced
   */
  public FileStatus repaired(String path, long fileId, long expectedVersion, long generation,
      Repairs done) throws NamespaceException {
    return commits.repaired(path, fileId, expectedVersion, generation, done);
  }

  /**
   * Adds {@code lost} to the repair record of a closed file: members a storage node found it can
   * no longer read (a scrub's unrecoverable objects), which readers then read around and
   * catch-up stores again from the other nodes (docs/across-nodes.md §5), if the file is still
   * at {@code expectedVersion} and writer {@code generation}.
   *
   * @throws NamespaceException CONFLICT when it was written since, LEASE_CONFLICT when it is
   *     open for writing, NOT_FOUND when it is gone or was replaced, TOO_LARGE past {@link
   *     Repairs#MAX_RANGES} ranges
   */
  public FileStatus damaged(String path, long fileId, long expectedVersion, long generation,
      Repairs lost) throws NamespaceException {
    return commits.damaged(path, fileId, expectedVersion, generation, lost);
  }

  /**
   * A file of the repair index: its id, its path when its record was last written or it was
   * last renamed (a rename of a directory above leaves it stale: check the id found there), and
   * the targets its repair record names.
   */
  public record ToRepair(long fileId, String path, List<String> targets) {}

  /**
   * Every file whose repair record is not empty, by file id, from the repair index
   * (docs/across-nodes.md §5): which files catch-up visits when a target returns, and which
   * targets need a resync, without walking the namespace. 256 listings and a read per file.
   */
  public List<ToRepair> filesToRepair() throws NamespaceException {
    List<ToRepair> out = new java.util.ArrayList<>();
    for (RepairIndex.Listed l : core.repairIndex.list()) {
      out.add(new ToRepair(l.id(), l.path(), List.copyOf(l.targets())));
    }
    return out;
  }

  /**
   * A file lease recovery left with groups to seal (its seal mark, docs/across-nodes.md,
   * "Lease recovery"): its id, its path at the recovery (a rename since leaves it stale: check
   * the id found there), and the first group that may hold copies.
   */
  public record ToSeal(long fileId, String path, long fromGroup) {}

  /** Every seal mark, by file id: what the keeper seals in its next round. */
  public List<ToSeal> filesToSeal() throws NamespaceException {
    List<ToSeal> out = new java.util.ArrayList<>();
    for (SealMarks.Mark m : core.sealMarks.list()) {
      out.add(new ToSeal(m.id(), m.path(), m.from()));
    }
    return out;
  }

  /** Clears file {@code fileId}'s seal mark once its groups are sealed (the keeper). */
  public void sealed(long fileId) throws NamespaceException {
    core.sealMarks.clear(fileId);
  }

  /**
   * Re-protection's switch (docs/across-nodes.md §5): replaces target {@code from} by {@code to}
   * in a closed file's layout, at the same position, once every member {@code from} held is
   * stored on {@code to}; the repair record's ranges on {@code from} go with it. One versioned
   * write: readers see the old layout or the new, never a mix. Refused as {@link #repaired} is
   * when the file was written or reopened since the mover read it.
   */
  public FileStatus moveMembers(String path, long fileId, long expectedVersion, long generation,
      String from, String to) throws NamespaceException {
    return commits.moveMembers(path, fileId, expectedVersion, generation, from, to);
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
    return commits.complete(path, fileId, expectedVersion, length, mtime, Repairs.NONE, null);
  }

  /** {@link #complete(String, long, long, long, long)}, adding {@code stale} as {@link
   * #setLength(String, long, long, long, long, Repairs)} does. */
  public FileStatus complete(String path, long fileId, long expectedVersion, long length,
      long mtime, Repairs stale) throws NamespaceException {
    return commits.complete(path, fileId, expectedVersion, length, mtime, stale, null);
  }

  /** {@link #complete(String, long, long, long, long, Repairs)}, setting the hole record as
   * {@link #setLength(String, long, long, long, long, Repairs, Holes)} does. */
  public FileStatus complete(String path, long fileId, long expectedVersion, long length,
      long mtime, Repairs stale, Holes holes) throws NamespaceException {
    return commits.complete(path, fileId, expectedVersion, length, mtime, stale, holes);
  }

  /**
   * Opens an existing, closed file for appending: takes its lease (WRITE on the file).
   * LEASE_CONFLICT when it is open for writing: by a live client, or by a dead one whose lease
   * awaits {@link #recoverLease}.
   */
  public FileStatus append(String path) throws NamespaceException {
    return commits.append(path);
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
    return commits.recoverLease(path, probe);
  }

  /** Whether the file is closed (no lease), Hadoop's {@code isFileClosed}. */
  public boolean isFileClosed(String path) throws NamespaceException {
    return reads.isFileClosed(path);
  }

  /**
   * Recovers every file whose writer's session has ended (what the cluster manager runs
   * periodically); live leases are left alone. Open records whose file no longer carries the
   * lease are dropped. A file whose recovery fails (a target that cannot answer: UNAVAILABLE;
   * missing data: DATA_MISSING) is logged and skipped, then retried after 1, 2, 4 … up to
   * {@value WriterCommits#MAX_RECOVERY_SKIP} rounds; the other files are recovered regardless.
   *
   * @return how many files were recovered
   */
  public int recoverExpiredLeases(LengthProbe probe) throws NamespaceException {
    return commits.recoverExpiredLeases(probe);
  }

  /** Sets one extended attribute ({@code user.}, {@code trusted.}, ... namespaces). */
  public FileStatus setXAttr(String path, String name, byte[] value, XAttrMode mode)
      throws NamespaceException {
    return xattrs.setXAttr(path, name, value, mode);
  }

  /** Removes one extended attribute; NOT_FOUND if it does not exist. */
  public FileStatus removeXAttr(String path, String name) throws NamespaceException {
    return xattrs.removeXAttr(path, name);
  }

  // ---------------------------------------------------------------- lifecycle

  /** Marks this namespace closed; the Curator client stays open (the caller owns it). */
  @Override
  public void close() {
    core.close();
  }

  /** The settings this namespace was opened with. */
  public NamespaceConfig config() {
    return core.config;
  }
}
