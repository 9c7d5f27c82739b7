package io.parityfs.meta;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the writer of a file and lease recovery commit, for one {@link Namespace} view: {@link
 * Namespace#setLength}, {@link Namespace#complete}, {@link Namespace#append}, {@link
 * Namespace#recoverLease} and {@link Namespace#recoverExpiredLeases}. A writer's commit tries
 * the entry it last wrote ({@link NamespaceCore#writing}) before reading. Thread-safe.
 */
final class WriterCommits {
  private static final Logger LOG = LoggerFactory.getLogger(Namespace.class);
  /** The most rounds {@link #recoverExpiredLeases} skips a file whose recovery keeps failing. */
  static final int MAX_RECOVERY_SKIP = 8;

  /**
   * Files whose recovery failed: {rounds still to skip, last skip}; doubled per failure up to
   * {@link #MAX_RECOVERY_SKIP} rounds, gone on success or when the file is no longer open.
   */
  private final Map<Long, int[]> recoveryBackoff = new HashMap<>();
  private final NamespaceCore core;
  private final EntryWalker walker;

  WriterCommits(NamespaceCore core, EntryWalker walker) {
    this.core = core;
    this.walker = walker;
  }

  /** {@link Namespace#setLength(String, long, long, long, long)}. */
  FileStatus setLength(String path, long fileId, long expectedVersion, long length,
      long mtime, Repairs stale, Holes holes) throws NamespaceException {
    checkCommit(length, mtime);
    return commit(path, fileId, i -> {
      checkWriter(i, path, fileId, expectedVersion);
      return withStale(withHoles(i.withLength(length, mtime), holes, path), stale, path);
    }, (before, after) -> List.of(leaseAlive(before)));
  }

  /**
   * {@code i} (at its new length) with the writer's hole record {@code holes} (null: the one it
   * has), without the groups past its length; TOO_LARGE past {@link Holes#MAX_RANGES} ranges.
   */
  private static Inode withHoles(Inode i, Holes holes, String path) throws NamespaceException {
    Holes h = (holes == null ? new Holes(i.holes()) : holes)
        .below(ChunkMap.of(i.layout()).groups(i.length()));
    if (h.ranges().size() > Holes.MAX_RANGES) {
      throw new NamespaceException(NamespaceStatus.TOO_LARGE, path, "the hole record of " + path
          + " would hold " + h.ranges().size() + " ranges, more than " + Holes.MAX_RANGES);
    }
    return h.ranges().equals(i.holes()) ? i : i.withHoles(h);
  }

  /**
   * {@code i} with the members a writer could not store added to its repair record; TOO_LARGE
   * when the record would pass {@link Repairs#MAX_RANGES} ranges (the write then fails rather
   * than be acknowledged without a record of what it left out).
   */
  private static Inode withStale(Inode i, Repairs stale, String path)
      throws NamespaceException {
    if (stale.isEmpty()) {
      return i;
    }
    Repairs all = new Repairs(i.repairs()).with(stale);
    if (all.ranges().size() > Repairs.MAX_RANGES) {
      throw new NamespaceException(NamespaceStatus.TOO_LARGE, path, "the repair record of "
          + path + " would hold " + all.ranges().size() + " ranges of members not stored, more"
          + " than " + Repairs.MAX_RANGES + "; bring the down targets back or repair the file"
          + " (parityfs repair) before writing more to it while they are down");
    }
    return i.withRepairs(all);
  }

  /**
   * {@link Namespace#repaired}: takes {@code done} out of a closed file's repair record, if the
   * file is still at {@code expectedVersion} and {@code generation} (nothing was written since
   * the repairer read it).
   */
  FileStatus repaired(String path, long fileId, long expectedVersion, long generation,
      Repairs done) throws NamespaceException {
    return commit(path, fileId, i -> {
      checkUnchanged(i, path, fileId, expectedVersion, generation, "repaired");
      Repairs left = new Repairs(i.repairs());
      for (Repairs.Range r : done.ranges()) {
        left = left.without(r.target(), r.from(), r.to());
      }
      return i.withRepairs(left);
    }, (before, after) -> List.of());
  }

  /**
   * {@link Namespace#damaged}: adds {@code lost} to a closed file's repair record, if the file
   * is still at {@code expectedVersion} and {@code generation} (nothing was written since the
   * caller read it, so the members it names are the ones found lost).
   */
  FileStatus damaged(String path, long fileId, long expectedVersion, long generation,
      Repairs lost) throws NamespaceException {
    return commit(path, fileId, i -> {
      checkUnchanged(i, path, fileId, expectedVersion, generation, "marked damaged");
      return withStale(i, lost, path);
    }, (before, after) -> List.of());
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
   * {@link Namespace#moveMembers}: a closed file's layout with target {@code from} replaced by
   * {@code to} (at the same position), its repair record without {@code from}'s ranges, if the
   * file is still at {@code expectedVersion} and {@code generation}.
   */
  FileStatus moveMembers(String path, long fileId, long expectedVersion, long generation,
      String from, String to) throws NamespaceException {
    return commit(path, fileId, i -> {
      checkUnchanged(i, path, fileId, expectedVersion, generation, "moved");
      List<String> targets = new java.util.ArrayList<>(i.layout().targets());
      int at = targets.indexOf(from);
      if (at < 0 || targets.contains(to)) {
        throw new NamespaceException(NamespaceStatus.CONFLICT, path, "layout " + targets
            + " does not name " + from + " or already names " + to);
      }
      targets.set(at, to);
      Repairs left = new Repairs(i.repairs()).without(from, 0, Long.MAX_VALUE - 1);
      return i.withLayout(i.layout().withTargets(targets)).withRepairs(left);
    }, (before, after) -> List.of());
  }

  /** The checks of a repairer's commit: the same closed file, nothing written since it read. */
  private static void checkUnchanged(Inode i, String path, long fileId, long expectedVersion,
      long generation, String what) throws NamespaceException {
    if (i.isDirectory() || i.id() != fileId) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, path, "file " + fileId
          + " is gone or was replaced");
    }
    if (i.lease() != null) {
      throw new NamespaceException(NamespaceStatus.LEASE_CONFLICT, path, "open for writing by "
          + i.lease().client() + ": " + what + " after it is closed");
    }
    if (i.version() != expectedVersion || i.generation() != generation) {
      throw new NamespaceException(NamespaceStatus.CONFLICT, path, "written since it was"
          + " read (version " + i.version() + ", generation " + i.generation() + "; read at "
          + expectedVersion + ", " + generation + ")");
    }
  }

  /** {@link Namespace#complete(String, long, long, long, long)}. */
  FileStatus complete(String path, long fileId, long expectedVersion, long length,
      long mtime, Repairs stale, Holes holes) throws NamespaceException {
    checkCommit(length, mtime);
    return commit(path, fileId, i -> {
      checkWriter(i, path, fileId, expectedVersion);
      return withStale(withHoles(i.withLength(length, mtime), holes, path), stale, path)
          .withLease(null);
    }, (before, after) -> List.of(leaseAlive(before), core.leases.deleteRecord(before.id())));
  }

  /**
   * A check, inside a writer's commit, that the session holding the lease still exists (its
   * ephemeral marker). {@link #checkWriter} compares the lease with this client's session id as
   * it reads it; a session that expired just then is replaced by Curator under the same client,
   * and without this check one commit could still land for the dead session's writer.
   */
  private Op leaseAlive(Inode before) {
    return core.zk.check(core.zn.sessionMarker(before.lease().session()), -1);
  }

  /**
   * A writer's update of its file. The file is found through its open record (its entry znode),
   * not its path, so a writer keeps writing a file that was renamed meanwhile, as in HDFS; a file
   * without an open record is looked up by path (and then refused by the writer checks).
   */
  private FileStatus commit(String path, long fileId, Updates.Change change,
      Updates.Also also) throws NamespaceException {
    String p = Names.join(Names.split(path));
    for (int attempt = 0; attempt < core.config.maxRetries(); attempt++) {
      Entry e = attempt == 0 ? core.writing.remove(fileId) : null;
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
          e = walker.findChecked(Names.split(p), p, 0);
        }
        next = change.apply(e.inode());
      }
      List<Op> ops = also.ops(e.inode(), next);
      Zk.Failure refused = core.refusal(e, next, ops, p);
      if (refused == null) {
        if (next.lease() != null) {
          core.writing.put(fileId, new Entry(e.path(), e.parentId(), e.znode(), next,
              e.zkVersion() + 1));
        }
        return next.status(e.path());
      }
      if (refused.index() > 0) {
        // the entry was current (its version matched): another op failed, and reading the
        // entry again cannot change that; retrying it maxRetries times only hid the cause
        throw refusedBeside(refused, ops, p, e.inode());
      }
    }
    throw core.conflict(p);
  }

  /**
   * Why a writer's commit was refused while its entry was current: the lease's session marker
   * is gone (the session that holds the lease ended: LEASE_EXPIRED), its open record is gone
   * (the lease was recovered: LEASE_EXPIRED), or another op failed (CONFLICT, naming it).
   */
  private static NamespaceException refusedBeside(Zk.Failure refused, List<Op> ops, String p,
      Inode before) {
    int i = refused.index() - 1;
    String path = i < ops.size() ? ops.get(i).getPath() : "a repair index record";
    if (i < ops.size() && ops.get(i) instanceof Op.Check
        && refused.code() == KeeperException.Code.NONODE) {
      return new NamespaceException(NamespaceStatus.LEASE_EXPIRED, p, "the ZooKeeper session"
          + " that holds the lease (" + Long.toHexString(before.lease().session()) + ") ended"
          + " before the commit");
    }
    if (i < ops.size() && ops.get(i) instanceof Op.Delete
        && refused.code() == KeeperException.Code.NONODE) {
      return new NamespaceException(NamespaceStatus.LEASE_EXPIRED, p, "the lease was recovered"
          + " (its open record " + path + " is gone)");
    }
    return new NamespaceException(NamespaceStatus.CONFLICT, p, "ZooKeeper refused the commit at "
        + path + ": " + refused.code());
  }

  /** The entry of an open file through its open record; null when it has none. */
  private Entry writerEntry(long fileId, String p) throws NamespaceException {
    String record = core.zn.openRecord(fileId);
    Leases.OpenFile open;
    try {
      open = Leases.decode(core.client.getData().forPath(record), record);
    } catch (KeeperException.NoNodeException ex) {
      return null;
    } catch (NamespaceException ex) {
      throw ex;
    } catch (Exception ex) {
      throw Zk.failure(p, "reading the open record of file " + ZNodes.hexId(fileId), ex);
    }
    Stat stat = new Stat();
    try {
      byte[] data = core.client.getData().storingStatIn(stat).forPath(open.entry());
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
    if (!core.leases.mine(i.lease())) {
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

  /** {@link Namespace#append}. */
  FileStatus append(String path) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    for (int attempt = 0; attempt < core.config.maxRetries(); attempt++) {
      Entry e = walker.findChecked(comps, p, AccessChecker.WRITE);
      if (e.isDirectory()) {
        throw new NamespaceException(NamespaceStatus.IS_A_DIRECTORY, p,
            "cannot append to a directory");
      }
      if (e.inode().isSymlink()) {
        throw EntryWalker.unresolvedLink(e);
      }
      Inode i = e.inode();
      if (i.lease() != null) {
        throw new NamespaceException(NamespaceStatus.LEASE_CONFLICT, p, core.leases.alive(i.lease())
            ? "open for writing by " + i.lease().client()
            : "its writer " + i.lease().client() + " died; recover the lease first");
      }
      // a new lease epoch: a new writer generation, which the targets fence older writers by
      Inode next = i.withLease(core.leases.grant()).withNextGeneration();
      Op record = core.leases.createRecord(i.id(), e.znode(), p, next.lease());
      if (core.write(e, next, List.of(record), p)) {
        core.writing.put(i.id(), new Entry(p, e.parentId(), e.znode(), next, e.zkVersion() + 1));
        return next.status(p);
      }
    }
    throw core.conflict(p);
  }

  /** {@link Namespace#recoverLease}. */
  boolean recoverLease(String path, LengthProbe probe) throws NamespaceException {
    Objects.requireNonNull(probe, "probe");
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    for (int attempt = 0; attempt < core.config.maxRetries(); attempt++) {
      Entry e = walker.findChecked(comps, p, AccessChecker.WRITE);
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
    throw core.conflict(p);
  }

  /** {@link Namespace#recoverExpiredLeases}. */
  int recoverExpiredLeases(LengthProbe probe) throws NamespaceException {
    synchronized (recoveryBackoff) { // one round at a time: the backoff counts rounds
      return recoverExpiredLeasesRound(probe);
    }
  }

  private int recoverExpiredLeasesRound(LengthProbe probe) throws NamespaceException {
    int recovered = 0;
    Set<Long> open = new HashSet<>();
    for (Leases.OpenFile f : core.leases.openFiles()) {
      open.add(f.id());
      Stat stat = new Stat();
      Inode inode;
      try {
        inode = InodeCodec.decode(core.client.getData().storingStatIn(stat).forPath(f.entry()),
            f.path());
      } catch (KeeperException.NoNodeException ex) {
        inode = null;
      } catch (NamespaceException ex) {
        throw ex;
      } catch (Exception ex) {
        throw Zk.failure(f.entry(), "reading an open file's entry", ex);
      }
      if (stale(f, inode)) {
        // judged on the record as listed, before the entry was read: the file may have been
        // closed and opened again since, by another session too, and the record at that path
        // be the new writer's. dropStale judges the record as it is now, against this entry,
        // and deletes it only while the entry is still at the version read.
        Inode read = inode;
        if (core.leases.dropStale(f.id(), f.entry(), read == null ? -1 : stat.getVersion(),
            now -> stale(now, read))) {
          LOG.warn("dropped stale open record of file {} ({})",
              ZNodes.hexId(f.id()), f.path());
        }
        continue;
      }
      if (core.leases.alive(inode.lease())) {
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
        LOG.warn("lease recovery of {} (file {}) failed ({}: {});"
            + " retrying it after {} rounds", f.path(), ZNodes.hexId(f.id()), ex.status(),
            ex.getMessage(), b[1]);
      }
    }
    recoveryBackoff.keySet().retainAll(open);
    return recovered;
  }

  /**
   * Whether open record {@code f} is stale against its file's entry {@code inode} (null: the
   * entry is missing): the entry holds another file, or the file carries no lease or another
   * session's.
   */
  private static boolean stale(Leases.OpenFile f, Inode inode) {
    return inode == null || inode.id() != f.id() || inode.lease() == null
        || inode.lease().session() != f.session();
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
    } catch (IOException ex) {
      throw unprobed(p, ex);
    }
    refuseMissing(i, p, stored);
    LengthProbe.Fenced after;
    try {
      after = probe.fenceAll(fenced.status(p), stored);
    } catch (IOException ex) {
      throw unprobed(p, ex);
    }
    stored = after.length();
    refuseMissing(i, p, stored);
    long length = stored;
    Inode next = withStale(withHoles(fenced.withLength(length), null, p), after.unreached(), p)
        .withLease(null);
    if (!core.write(e, next, List.of(core.leases.deleteRecord(i.id())), p)) {
      return false;
    }
    if (i.layout().across().isErasureCoded()) {
      // its last groups stay as the dead writer stored them, maybe in copies: the keeper
      // seals them in its next round (SealMarks); best effort, its hourly check is the backstop
      long from = i.length() / ((long) i.layout().chunkSize() * i.layout().across().data());
      try {
        core.sealMarks.mark(i.id(), p, from);
      } catch (NamespaceException ex) {
        LOG.warn("lease recovery of {}: no seal mark ({}); the keeper's check will seal its"
            + " last groups", p, ex.getMessage());
      }
    }
    LOG.info("recovered the lease of {} (file {}, writer {}): "
        + "length {}, writer generation {}{}", p, ZNodes.hexId(i.id()), i.lease().client(),
        length, next.generation(), after.unreached().isEmpty() ? "" : "; members on targets"
        + " that could not be reached, for catch-up: " + after.unreached());
    return true;
  }

  private static NamespaceException unprobed(String p, IOException ex) {
    return new NamespaceException(NamespaceStatus.UNAVAILABLE, p, "lease recovery could not"
        + " read or fence the file's chunks on its targets: " + ex.getMessage(), ex);
  }

  /** DATA_MISSING, loudly, when the targets hold less than the committed length. */
  private static void refuseMissing(Inode i, String p, long stored) throws NamespaceException {
    if (stored >= i.length()) {
      return;
    }
    // the committed length promises bytes no target holds: closing the file there would hide
    // the hole from every reader until one trips on it; closing it at the stored length would
    // silently drop acknowledged bytes. Leave it open and say so.
    LOG.error("lease recovery of {} (file {}, writer {}) refused:"
        + " the targets hold {} bytes but {} are committed; acknowledged data is missing,"
        + " the file stays open", p, ZNodes.hexId(i.id()), i.lease().client(), stored,
        i.length());
    throw new NamespaceException(NamespaceStatus.DATA_MISSING, p, "lease recovery refused: "
        + "the targets hold " + stored + " bytes of file " + ZNodes.hexId(i.id())
        + " but its committed length is " + i.length() + "; the file stays open");
  }
}
