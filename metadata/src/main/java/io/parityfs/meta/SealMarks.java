package io.parityfs.meta;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * Seal marks (docs/across-nodes.md, "Lease recovery", audit L2): lease recovery of a file with
 * {@code ec} protection across nodes leaves its last groups as its dead writer stored them,
 * possibly in copies (an hflushed partial group that no round sealed), and marks the file so
 * that the keeper seals them in its next round, not at its hourly check.
 *
 * <pre>
 * R/seals/IIIIIIIIII    IIIIIIIIII = the file id (10 hex); one flat folder: marks are few
 * data (UTF-8 JSON, schema 1; unknown fields ignored):
 * {"schema":1,"id":4097,"path":"/ckpt/model.bin","from":3}
 * </pre>
 *
 * {@code from} is the first group that may hold copies: the group of the length committed
 * before the recovery (a writer stores copies only in groups it changed after its last commit
 * reached them). {@code path} is the path at the recovery: a rename since leaves it stale, and
 * the keeper's hourly check is then what finds the groups. A mark is written after the
 * recovery's commit, not in its {@code multi}: a manager that dies between the two leaves the
 * groups to that check, which is as safe (copies keep M + 1 copies of every committed byte)
 * and only slower.
 */
final class SealMarks {
  private static final int SCHEMA = 1;
  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** A mark as stored. */
  @JsonPropertyOrder({"schema", "id", "path", "from"})
  record Mark(int schema, long id, String path, long from) {}

  private final CuratorFramework client;
  private final ZNodes zn;

  SealMarks(CuratorFramework client, ZNodes zn) {
    this.client = client;
    this.zn = zn;
  }

  /** Makes {@code R/seals} if absent (namespaces formatted before it). */
  static void ensureFormatted(CuratorFramework client, ZNodes zn) throws Exception {
    Zk.ensureAll(client, List.of(zn.seals));
  }

  /** Marks file {@code id}, keeping an older mark's {@code from} when lower. */
  void mark(long id, String path, long from) throws NamespaceException {
    String z = zn.sealMark(id);
    try {
      for (int attempt = 0; attempt < 3; attempt++) {
        try {
          client.create().forPath(z, encode(new Mark(SCHEMA, id, path, from)));
          return;
        } catch (KeeperException.NodeExistsException e) {
          org.apache.zookeeper.data.Stat st = new org.apache.zookeeper.data.Stat();
          Mark old;
          try {
            old = decode(client.getData().storingStatIn(st).forPath(z), z);
          } catch (KeeperException.NoNodeException gone) {
            continue; // sealed meanwhile: make it again
          }
          client.setData().withVersion(st.getVersion()).forPath(z,
              encode(new Mark(SCHEMA, id, path, Math.min(from, old.from()))));
          return;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
          // changed or cleared meanwhile: again
        }
      }
    } catch (NamespaceException e) {
      throw e;
    } catch (Exception e) {
      throw Zk.failure(z, "writing the seal mark", e);
    }
  }

  /** Every mark, by file id (one listing, then one read per mark). */
  List<Mark> list() throws NamespaceException {
    List<String> names;
    try {
      names = client.getChildren().forPath(zn.seals);
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (Exception e) {
      throw Zk.failure(zn.seals, "listing the seal marks", e);
    }
    List<Mark> out = new ArrayList<>();
    for (String name : names) {
      String z = zn.seals + "/" + name;
      try {
        out.add(decode(client.getData().forPath(z), z));
      } catch (KeeperException.NoNodeException e) {
        // cleared meanwhile
      } catch (NamespaceException e) {
        throw e;
      } catch (Exception e) {
        throw Zk.failure(z, "reading a seal mark", e);
      }
    }
    out.sort((a, b) -> Long.compare(a.id(), b.id()));
    return out;
  }

  /** Clears file {@code id}'s mark, if any. */
  void clear(long id) throws NamespaceException {
    String z = zn.sealMark(id);
    try {
      client.delete().forPath(z);
    } catch (KeeperException.NoNodeException e) {
      // cleared already
    } catch (Exception e) {
      throw Zk.failure(z, "clearing the seal mark", e);
    }
  }

  private static byte[] encode(Mark m) {
    try {
      return JSON.writeValueAsBytes(m);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Mark decode(byte[] data, String znode) throws NamespaceException {
    Mark m;
    try {
      m = JSON.readValue(data, Mark.class);
    } catch (IOException e) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, znode,
          "undecodable seal mark: " + e.getMessage(), e);
    }
    if (m.schema() != SCHEMA || m.path() == null) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, znode,
          "seal mark of schema " + m.schema() + " (this code reads " + SCHEMA + ")");
    }
    return m;
  }
}
