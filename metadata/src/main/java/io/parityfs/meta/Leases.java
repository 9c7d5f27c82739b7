package io.parityfs.meta;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Write leases: one writer per file, tied to the writer's ZooKeeper session.
 *
 * <p>A file open for writing carries a {@link Lease} in its inode record (holder's client name
 * and session id) and has an <b>open record</b>, created and removed in the same {@code multi}s
 * that set and clear the lease:
 *
 * <pre>
 * R/leases/SS/IIIIIIIIII     SS = low byte of the file id; IIIIIIIIII = the file id (10 hex)
 * data (UTF-8 JSON, schema 1; unknown fields ignored):
 * {"schema":1,"id":4097,"entry":"/parityfs/ns/dirs/01/0000000001/2a/model.bin",
 *  "path":"/ckpt/model.bin","session":72057594037927936,"client":"alice@host1/3f2a",
 *  "since":1767225600000}
 * </pre>
 *
 * {@code entry} is the file's entry znode. Entries hang off their directory's id, so renaming a
 * directory above the file leaves it valid; renaming the file itself rewrites it in the rename's
 * {@code multi}; removing the file deletes it ({@link FileRemovals}). {@code path} is the path at
 * open, for messages only.
 *
 * <p>The lease is <b>alive</b> while the holder's session marker {@code R/sessions/<session>}
 * exists: an ephemeral znode the holder creates (once per session) before its first lease,
 * which ZooKeeper removes when the session ends. A writer that dies or is partitioned for longer
 * than its session timeout therefore loses its leases without anyone's help; whoever then finds
 * the open record with a dead session ({@link Namespace#recoverExpiredLeases}, the cluster
 * manager) recovers the file: its length becomes what the storage nodes hold, the lease and the
 * open record go. A holder notices the loss at its next commit: its session id is no longer the
 * one in the lease (LEASE_EXPIRED).
 */
final class Leases {
  private static final Logger LOG = LoggerFactory.getLogger(Leases.class);
  private static final int SCHEMA = 1;
  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** An open record as stored. */
  @JsonPropertyOrder({"schema", "id", "entry", "path", "session", "client", "since"})
  record OpenFile(int schema, long id, String entry, String path, long session, String client,
      long since) {}

  private final CuratorFramework client;
  private final Zk zk;
  private final ZNodes zn;
  private final String clientName;
  private final AtomicLong markedSession = new AtomicLong();

  Leases(Zk zk, ZNodes zn) {
    this.client = zk.client();
    this.zk = zk;
    this.zn = zn;
    this.clientName = System.getProperty("user.name", "unknown") + "@" + hostName() + "/"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 16));
  }

  /** Makes {@code R/leases}, its shards and {@code R/sessions} if absent. */
  static void ensureFormatted(CuratorFramework client, ZNodes zn) throws Exception {
    List<String> paths = new ArrayList<>();
    paths.add(zn.sessions);
    paths.add(zn.leases);
    for (int i = 0; i < ZNodes.SHARDS; i++) {
      paths.add(zn.leaseShard(i));
    }
    Zk.ensureAll(client, paths);
  }

  String clientName() {
    return clientName;
  }

  /** The id of this client's current ZooKeeper session. */
  long session() throws NamespaceException {
    try {
      return client.getZookeeperClient().getZooKeeper().getSessionId();
    } catch (Exception e) {
      throw Zk.failure(zn.sessions, "reading the session id", e);
    }
  }

  /**
   * A new lease for this client: makes sure the current session's marker exists first, so the
   * lease is alive from the moment a {@code multi} grants it.
   */
  Lease grant() throws NamespaceException {
    long session = session();
    if (markedSession.get() != session) {
      String marker = zn.sessionMarker(session);
      try {
        client.create().withMode(CreateMode.EPHEMERAL).forPath(marker,
            JSON.writeValueAsBytes(new Marker(SCHEMA, clientName, System.currentTimeMillis())));
      } catch (KeeperException.NodeExistsException e) {
        // made by this session before (a retried create)
      } catch (Exception e) {
        throw Zk.failure(marker, "creating the session marker", e);
      }
      markedSession.set(session);
      LOG.debug("session {} marked for leases", Long.toHexString(session));
    }
    return new Lease(clientName, session, System.currentTimeMillis());
  }

  @JsonPropertyOrder({"schema", "client", "since"})
  private record Marker(int schema, String client, long since) {}

  /** Whether the lease's session is still alive (its marker exists). */
  boolean alive(Lease lease) throws NamespaceException {
    String marker = zn.sessionMarker(lease.session());
    try {
      Stat s = client.checkExists().forPath(marker);
      return s != null && s.getEphemeralOwner() == lease.session();
    } catch (Exception e) {
      throw Zk.failure(marker, "checking a lease holder's session", e);
    }
  }

  /** Whether {@code lease} is held by this client's current session. */
  boolean mine(Lease lease) throws NamespaceException {
    return lease != null && lease.session() == session();
  }

  Op createRecord(long fileId, String entry, String path, Lease lease) {
    return zk.create(zn.openRecord(fileId), encode(new OpenFile(SCHEMA, fileId, entry, path,
        lease.session(), lease.client(), lease.since())));
  }

  /** Points the open record at the file's new entry (a rename of the file itself). */
  Op moveRecord(long fileId, String entry, String path, Lease lease) {
    return zk.setData(zn.openRecord(fileId), encode(new OpenFile(SCHEMA, fileId, entry, path,
        lease.session(), lease.client(), lease.since())), -1);
  }

  Op deleteRecord(long fileId) {
    return zk.delete(zn.openRecord(fileId), -1);
  }

  /** Every open record (256 {@code getChildren}, then one read per record). */
  List<OpenFile> openFiles() throws NamespaceException {
    List<OpenFile> out = Zk.readShards(client, zn::leaseShard, Leases::decode,
        "open records");
    return out;
  }

  /**
   * Deletes the open record of {@code fileId} if it is still stale: read again here, after its
   * file's entry {@code entry} was read at {@code entryVersion} (-1: the entry was missing), it
   * still names that entry and {@code stale} holds for it. A record listed before the entry was
   * read may be a newer writer's by now: the file closed and opened again, by another session
   * too (issue 39 item 6: deleting it left that writer unable to close). The delete is one
   * {@code multi} with a check of the entry's version and of the record's: every write that
   * makes, moves or deletes an open record also writes its file's entry, so a record read
   * while the entry stayed at that version is the one deleted, judged against that entry.
   * (Without an entry there is nothing to check: the record's version alone guards it; no write
   * of this code leaves a record naming a missing entry.)
   *
   * @return whether it was deleted
   */
  boolean dropStale(long fileId, String entry, int entryVersion, Predicate<OpenFile> stale)
      throws NamespaceException {
    String z = zn.openRecord(fileId);
    Stat stat = new Stat();
    OpenFile now;
    try {
      now = decode(client.getData().storingStatIn(stat).forPath(z), z);
    } catch (KeeperException.NoNodeException e) {
      return false; // gone already
    } catch (NamespaceException e) {
      throw e;
    } catch (Exception e) {
      throw Zk.failure(z, "reading an open record", e);
    }
    if (!now.entry().equals(entry) || !stale.test(now)) {
      return false; // moved or a newer writer's: the next round judges it afresh
    }
    List<Op> ops = new ArrayList<>(2);
    if (entryVersion >= 0) {
      ops.add(zk.check(entry, entryVersion));
    }
    ops.add(zk.delete(z, stat.getVersion()));
    return zk.multi(ops, null, z) == null;
  }

  private static byte[] encode(OpenFile f) {
    try {
      return JSON.writeValueAsBytes(f);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static OpenFile decode(byte[] data, String znode) throws NamespaceException {
    OpenFile f;
    try {
      f = JSON.readValue(data, OpenFile.class);
    } catch (IOException e) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, znode,
          "undecodable open record: " + e.getMessage(), e);
    }
    if (f.schema() != SCHEMA || f.entry() == null) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, znode,
          "open record of schema " + f.schema() + " (this code reads " + SCHEMA + ")");
    }
    return f;
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }
}
