package io.parityfs.meta;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Formatting a namespace for {@link Namespace#open} and {@link Namespace#format}: the format
 * record, the id counter, the root inode and the fixed znodes ({@link ZNodes}) in one {@code
 * multi}, and the policy of {@link NamespaceConfig#ifMissing()} when there is none.
 */
final class NamespaceFormat {
  private static final Logger LOG = LoggerFactory.getLogger(Namespace.class);
  /** Reads and writes the format record (schema 1). */
  static final ObjectMapper JSON = new ObjectMapper();

  private NamespaceFormat() {}

  /**
   * What {@link Namespace#open} does: checks the client, formats where {@code
   * config.ifMissing()} allows, completes the znodes later versions added, checks the format
   * record and raises the id counter past every advertised file id.
   */
  static NamespaceCore open(CuratorFramework client, NamespaceConfig config)
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
      RepairIndex.ensureFormatted(client, zn);
      SealMarks.ensureFormatted(client, zn);
      Zk.ensureAll(client, List.of(zn.idSkips));
      Inode root = InodeCodec.decode(client.getData().forPath(zn.rootInode), "/");
      Map<?, ?> format = JSON.readValue(client.getData().forPath(zn.root), Map.class);
      if (!Integer.valueOf(1).equals(format.get("schema"))) {
        throw new NamespaceException(NamespaceStatus.CORRUPT, zn.root,
            "namespace format " + format + " is not schema 1");
      }
      NamespaceCore core = new NamespaceCore(client, config, root.buckets());
      try {
        core.ids.raisePastAdvertised();
      } catch (NamespaceException | RuntimeException e) {
        core.close();
        throw e;
      }
      return core;
    } catch (NamespaceException e) {
      throw e;
    } catch (JsonProcessingException e) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, zn.root, "unreadable format record",
          e);
    } catch (Exception e) {
      throw Zk.failure(zn.root, "opening the namespace", e);
    }
  }

  /** What {@link Namespace#format} does: formats unless there is a namespace, then opens it. */
  static boolean formatUnlessPresent(CuratorFramework client, NamespaceConfig config)
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

  /** Formats as {@code config.ifMissing()} allows, else NOT_FOUND saying where it looked. */
  static void formatIfAllowed(CuratorFramework client, NamespaceConfig config,
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
  static boolean format(CuratorFramework client, NamespaceConfig config, ZNodes zn)
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
      LOG.info("namespace formatted at {}", zn.root);
      return true;
    } catch (KeeperException.NodeExistsException e) {
      // formatted concurrently by another client (or by our own retried attempt)
      return false;
    }
  }
}
