package io.parityfs.meta;

/**
 * The znodes of a namespace under its root {@code R} (default {@code /parityfs/ns}):
 *
 * <pre>
 * R                              format record, JSON {"schema":1,"rootId":1,"shards":256}
 * R/ids                          next free inode id, decimal text (compare-and-set)
 * R/idskips                      id ranges the counter jumped over, never handed out: JSON
 *                                [[from,to),...] ({@link IdSkips}, {@link IdAllocator})
 * R/root                         the root directory's inode (JSON, {@link InodeCodec})
 * R/dirs/SS                      256 shard znodes, SS = low byte of a directory id, 2 hex digits
 * R/dirs/SS/IIIIIIIIII           a directory's container, id as 10 hex digits; data empty and
 *                                version 0 while live; a detached (deleted) directory's
 *                                container holds a marker and has version 1
 * R/dirs/SS/IIIIIIIIII/BB        an entry bucket, BB = hash(name) mod buckets, 2 hex digits;
 *                                made on first use
 * R/dirs/SS/IIIIIIIIII/BB/NAME   a directory entry: NAME is the encoded name ({@link Names}),
 *                                data the child's whole inode
 * R/trash/IIIIIIIIII             a detached directory whose subtree is still being deleted
 * R/deletes/SS                   256 shards of the deferred-delete queue, SS = low byte of a
 *                                file id, 2 hex digits
 * R/deletes/SS/IIIIIIIIII        a removed file whose chunks are still to be deleted
 *                                ({@link DeleteQueue} has the JSON)
 * R/leases/SS                    256 shards of the open-file records, SS = low byte of a file id
 * R/leases/SS/IIIIIIIIII         a file open for writing: its entry znode and lease holder
 *                                ({@link Leases} has the JSON)
 * R/repairs/SS                   256 shards of the repair index, SS = low byte of a file id
 * R/repairs/SS/IIIIIIIIII        a file whose repair record is not empty: its entry, path and
 *                                the targets the record names ({@link RepairIndex})
 * R/seals/IIIIIIIIII            a file lease recovery left with groups to seal ({@link
 *                                SealMarks})
 * R/sessions/SSSSSSSSSSSSSSSS    ephemeral marker of a ZooKeeper session holding leases, the
 *                                session id as 16 hex digits: the lease is alive while it is
 * </pre>
 *
 * A directory's entries hang off its <em>id</em>, not its path, so moving a directory moves one
 * entry znode however large its subtree is.
 */
final class ZNodes {
  static final long ROOT_ID = 1;
  static final int SHARDS = 256;

  final String root;
  final String ids;
  final String idSkips;
  final String rootInode;
  final String dirs;
  final String trash;
  final String deletes;
  final String leases;
  final String sessions;
  final String repairs;
  final String seals;

  ZNodes(String root) {
    this.root = root;
    this.ids = root + "/ids";
    this.idSkips = root + "/idskips";
    this.rootInode = root + "/root";
    this.dirs = root + "/dirs";
    this.trash = root + "/trash";
    this.deletes = root + "/deletes";
    this.leases = root + "/leases";
    this.sessions = root + "/sessions";
    this.repairs = root + "/repairs";
    this.seals = root + "/seals";
  }

  static String hexId(long id) {
    return String.format("%010x", id);
  }

  String shard(int index) {
    return dirs + "/" + Names.bucketName(index);
  }

  String container(long dirId) {
    return shard((int) (dirId & 0xff)) + "/" + hexId(dirId);
  }

  String bucket(long dirId, String name, int buckets) {
    return container(dirId) + "/" + Names.bucket(name, buckets);
  }

  String entry(long dirId, int buckets, String name) {
    return bucket(dirId, name, buckets) + "/" + Names.encode(name);
  }

  String trashMarker(long dirId) {
    return trash + "/" + hexId(dirId);
  }

  String deleteShard(int index) {
    return deletes + "/" + Names.bucketName(index);
  }

  String deleteRecord(long fileId) {
    return deleteShard((int) (fileId & 0xff)) + "/" + hexId(fileId);
  }

  String leaseShard(int index) {
    return leases + "/" + Names.bucketName(index);
  }

  String repairShard(int index) {
    return repairs + "/" + Names.bucketName(index);
  }

  String sealMark(long fileId) {
    return seals + "/" + hexId(fileId);
  }

  String repairRecord(long fileId) {
    return repairShard((int) (fileId & 0xff)) + "/" + hexId(fileId);
  }

  String openRecord(long fileId) {
    return leaseShard((int) (fileId & 0xff)) + "/" + hexId(fileId);
  }

  String sessionMarker(long sessionId) {
    return sessions + "/" + String.format("%016x", sessionId);
  }
}
