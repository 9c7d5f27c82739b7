package io.parityfs.node.registry;

/**
 * The znodes a storage node writes, relative to the configured chroot (see "ZooKeeper" in {@code
 * docs/storage-node.md} for the JSON of each):
 *
 * <pre>
 * /parityfs/nodes/&lt;nodeId&gt;       persistent  {@link NodeRecord}: who the node is, where it listens
 * /parityfs/targets/&lt;targetId&gt;   persistent  {@link TargetRecord}: the array, its node, last state
 * /parityfs/online/&lt;nodeId&gt;      ephemeral   {@link OnlineRecord}: the node is up; capacity, free
 *                                 space, per-target array and drive state, rebuilds, codec
 * </pre>
 *
 * The metadata layer watches the children of {@code /parityfs/online} to see nodes come and go
 * (one {@code getChildren} for the whole cluster) and reads the persistent records for nodes and
 * targets that are offline.
 */
public final class ZkPaths {
  public static final String ROOT = "/parityfs";
  public static final String NODES = ROOT + "/nodes";
  public static final String TARGETS = ROOT + "/targets";
  public static final String ONLINE = ROOT + "/online";

  private ZkPaths() {}

  public static String node(String nodeId) {
    return NODES + "/" + nodeId;
  }

  public static String target(String targetId) {
    return TARGETS + "/" + targetId;
  }

  public static String online(String nodeId) {
    return ONLINE + "/" + nodeId;
  }
}
