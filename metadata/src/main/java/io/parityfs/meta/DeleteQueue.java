package io.parityfs.meta;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable deferred-delete queue: one persistent znode per removed file whose chunks are
 * still on the storage targets. A record is created by the same {@code multi} that removes the
 * file's entry ({@link FileRemovals}), and deleted by the cluster manager once every chunk of the
 * file is gone, so the queue survives crashes of both.
 *
 * <pre>
 * R/deletes/SS/IIIIIIIIII   SS = low byte of the file id (2 hex digits, 256 shards made at
 *                           format, so no znode has more than 1/256 of the records as children);
 *                           IIIIIIIIII = the file id, 10 hex digits
 * data (UTF-8 JSON, fields in this order, schema 1; unknown fields ignored):
 * {"schema":1,"id":4097,"layout":{"chunkSize":8388608,"stripeCount":4,
 *   "targets":["t1","t2","t3","t4"],"protection":"raid6:4+2","across":"none",
 *   "pool":"default"},
 *  "length":1048576,"version":3,"queuedMillis":1767225600000}
 * </pre>
 *
 * File ids are never reused, so a record's name is unique for ever. Thread-safe; reads go
 * through the caller's Curator client (which it keeps owning).
 */
public final class DeleteQueue {
  private static final Logger LOG = LoggerFactory.getLogger(DeleteQueue.class);
  private static final int SCHEMA = 1;
  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
      .registerModule(LayoutJson.module());

  @JsonPropertyOrder({"schema", "id", "layout", "length", "version", "queuedMillis"})
  private record Wire(int schema, long id, Layout layout, long length, long version,
      long queuedMillis) {}

  private final Zk zk;
  private final ZNodes zn;

  private DeleteQueue(CuratorFramework client, ZNodes zn) {
    this.zk = new Zk(client);
    this.zn = zn;
  }

  /**
   * The queue of the namespace under {@code config.root()} (which must exist: open the {@link
   * Namespace} first; that also makes the queue's znodes in a namespace formatted before the
   * queue existed).
   */
  public static DeleteQueue open(CuratorFramework client, NamespaceConfig config) {
    Objects.requireNonNull(client, "client");
    return new DeleteQueue(client, new ZNodes(config.root()));
  }

  /** Makes {@code R/deletes} and its shards if absent (a namespace formatted by older code). */
  static void ensureFormatted(CuratorFramework client, ZNodes zn) throws Exception {
    if (client.checkExists().forPath(zn.deleteShard(ZNodes.SHARDS - 1)) != null) {
      return;
    }
    List<CuratorOp> ops = new ArrayList<>();
    if (client.checkExists().forPath(zn.deletes) == null) {
      ops.add(client.transactionOp().create().forPath(zn.deletes, new byte[0]));
    }
    for (int i = 0; i < ZNodes.SHARDS; i++) {
      if (client.checkExists().forPath(zn.deleteShard(i)) == null) {
        ops.add(client.transactionOp().create().forPath(zn.deleteShard(i), new byte[0]));
      }
    }
    try {
      client.transaction().forOperations(ops);
      LOG.info("deferred-delete queue made at {}", zn.deletes);
    } catch (KeeperException.NodeExistsException e) {
      // another opener made it
    }
  }

  /** The number of records (one {@code exists} per shard, in parallel). */
  public long size() throws NamespaceException {
    List<CompletableFuture<CuratorEvent>> stats = new ArrayList<>(ZNodes.SHARDS);
    for (int i = 0; i < ZNodes.SHARDS; i++) {
      stats.add(zk.existsAsync(zn.deleteShard(i)));
    }
    long n = 0;
    for (CuratorEvent e : Zk.joinAll(stats, zn.deletes)) {
      Stat s = e.getStat();
      n += s == null ? 0 : s.getNumChildren();
    }
    return n;
  }

  /** The ids of every record, sorted (one {@code getChildren} per shard, in parallel). */
  public long[] ids() throws NamespaceException {
    List<CompletableFuture<CuratorEvent>> lists = new ArrayList<>(ZNodes.SHARDS);
    for (int i = 0; i < ZNodes.SHARDS; i++) {
      lists.add(zk.getChildrenAsync(zn.deleteShard(i)));
    }
    long[] out = new long[16];
    int n = 0;
    for (CuratorEvent e : Zk.joinAll(lists, zn.deletes)) {
      if (e.getResultCode() != 0) {
        continue;
      }
      for (String name : e.getChildren()) {
        long id;
        try {
          id = Long.parseLong(name, 16);
        } catch (NumberFormatException x) {
          LOG.warn("ignoring foreign znode {} in {}", name,
              e.getPath());
          continue;
        }
        if (n == out.length) {
          out = Arrays.copyOf(out, n * 2);
        }
        out[n++] = id;
      }
    }
    out = Arrays.copyOf(out, n);
    Arrays.sort(out);
    return out;
  }

  /**
   * Up to {@code limit} records, lowest ids first. A record whose data cannot be read as a
   * record is logged and skipped (left in place for an operator).
   */
  public List<DeferredDelete> list(int limit) throws NamespaceException {
    if (limit < 1) {
      throw new IllegalArgumentException("limit (" + limit + ") must be >= 1");
    }
    long[] ids = ids();
    int n = Math.min(limit, ids.length);
    List<CompletableFuture<CuratorEvent>> reads = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      reads.add(zk.getDataAsync(zn.deleteRecord(ids[i])));
    }
    List<DeferredDelete> out = new ArrayList<>(n);
    List<CuratorEvent> data = Zk.joinAll(reads, zn.deletes);
    for (int i = 0; i < n; i++) {
      CuratorEvent e = data.get(i);
      if (e.getResultCode() != 0) {
        continue; // removed meanwhile
      }
      try {
        out.add(decode(e.getData(), e.getPath()));
      } catch (NamespaceException x) {
        LOG.warn("unreadable deferred-delete record {}: {}",
            e.getPath(), x.getMessage());
      }
    }
    return out;
  }

  /** File {@code id}'s record, or empty when there is none (NOT_FOUND is not an error here). */
  public Optional<DeferredDelete> get(long id) throws NamespaceException {
    String z = zn.deleteRecord(id);
    byte[] data;
    try {
      data = zk.client().getData().forPath(z);
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    } catch (Exception e) {
      throw Zk.failure(z, "reading " + z, e);
    }
    return Optional.of(decode(data, z));
  }

  /** Whether file {@code id} has a record. */
  public boolean contains(long id) throws NamespaceException {
    String z = zn.deleteRecord(id);
    try {
      return zk.client().checkExists().forPath(z) != null;
    } catch (Exception e) {
      throw Zk.failure(z, "reading " + z, e);
    }
  }

  /**
   * Removes file {@code id}'s record: what the cluster manager does once every chunk of the file
   * is gone. Idempotent.
   *
   * @return whether the record existed
   */
  public boolean remove(long id) throws NamespaceException {
    String z = zn.deleteRecord(id);
    try {
      zk.client().delete().forPath(z);
      return true;
    } catch (KeeperException.NoNodeException e) {
      return false;
    } catch (Exception e) {
      throw Zk.failure(z, "deleting " + z, e);
    }
  }

  static byte[] encode(DeferredDelete r) {
    try {
      return JSON.writeValueAsBytes(new Wire(SCHEMA, r.id(), r.layout(), r.length(),
          r.version(), r.queuedMillis()));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e); // records of plain values always serialise
    }
  }

  static DeferredDelete decode(byte[] data, String znode) throws NamespaceException {
    Wire w;
    try {
      w = JSON.readValue(data, Wire.class);
    } catch (IOException | RuntimeException e) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, znode,
          "undecodable deferred-delete record: " + e.getMessage(), e);
    }
    if (w.schema() != SCHEMA || w.layout() == null) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, znode,
          "deferred-delete record of schema " + w.schema() + " (this code reads " + SCHEMA + ")");
    }
    return new DeferredDelete(w.id(), w.layout(), w.length(), w.version(), w.queuedMillis());
  }
}
