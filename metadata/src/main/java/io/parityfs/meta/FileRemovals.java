package io.parityfs.meta;

import java.util.List;
import org.apache.zookeeper.Op;

/**
 * What must happen, in the same ZooKeeper {@code multi}, whenever a file inode leaves the
 * namespace (delete, create with overwrite, the purge of a recursively deleted directory).
 * Rename is not a removal: the inode stays.
 *
 * <p>Today that is: create the file's record in the deferred-delete queue ({@link
 * DeleteQueue}), so that the removal and the promise to delete the file's chunks commit
 * together or not at all, and a crash at any point leaves neither a removed file without a
 * record nor a record for a live file; and, for a file open for writing, delete its open
 * record ({@link Leases}); for a file with a repair record, delete its index record ({@link
 * RepairIndex}). Every place that removes a file inode calls {@link
 * #opsFor} and adds what it returns to its {@code multi}; add further per-file ops here.
 */
final class FileRemovals {
  private final Zk zk;
  private final ZNodes zn;
  private final RepairIndex repairIndex;

  FileRemovals(Zk zk, ZNodes zn, RepairIndex repairIndex) {
    this.zk = zk;
    this.zn = zn;
    this.repairIndex = repairIndex;
  }

  /** The ops to add to the {@code multi} that removes the entry of {@code file}. */
  List<Op> opsFor(Inode file) {
    if (file.isDirectory()) {
      throw new IllegalArgumentException("inode " + file.id() + " is a directory, not a file");
    }
    if (file.isSymlink()) {
      return List.of(); // a link has no chunks, no lease and no repair record
    }
    DeferredDelete record = new DeferredDelete(file.id(), file.layout(), file.length(),
        file.version(), System.currentTimeMillis());
    List<Op> ops = new java.util.ArrayList<>(3);
    ops.add(zk.create(zn.deleteRecord(file.id()), DeleteQueue.encode(record)));
    if (file.lease() != null) {
      // a file removed while open for writing: its open record goes with it (see Leases)
      ops.add(zk.delete(zn.openRecord(file.id()), -1));
    }
    ops.addAll(repairIndex.onRemove(file)); // and its repair index record (RepairIndex)
    return ops;
  }
}
