package io.parityfs.meta.registry;

/**
 * The registry's znodes, relative to the Curator client's namespace (a storage node's {@code
 * zookeeper.chroot}):
 *
 * <pre>
 * /parityfs/nodes/&lt;nodeId&gt;       persistent  {@link NodeRecord}: who the node is, where it listens
 * /parityfs/targets/&lt;targetId&gt;   persistent  {@link TargetRecord}: the array, its node, pool, last state
 * /parityfs/online/&lt;nodeId&gt;      ephemeral   {@link OnlineRecord}: the node is up; capacity, free
 *                                 space, per-target array and drive state, rebuilds, codec
 * /parityfs/offline/&lt;targetId&gt;   persistent  {@link OfflineRecord}: the cluster manager declared
 *                                 the target offline (until its node registers again)
 * /parityfs/retired/&lt;targetId&gt;   persistent  {@link RetiredRecord}: the target is draining or bad
 *                                 (until an admin reinstates it)
 * /parityfs/progress/&lt;targetId&gt;  persistent  {@link MoveProgress}: moving its members off
 * </pre>
 *
 * Storage nodes write the first three; the metadata layer watches the children of {@code
 * /parityfs/online} to see nodes come and go (one {@code getChildren} for the whole cluster),
 * reads the persistent records for nodes and targets that are offline, and writes the offline
 * and retirement marks; movers write the progress records.
 */
public final class ZkPaths {
  public static final String ROOT = "/parityfs";
  public static final String NODES = ROOT + "/nodes";
  public static final String TARGETS = ROOT + "/targets";
  public static final String ONLINE = ROOT + "/online";
  public static final String OFFLINE = ROOT + "/offline";
  public static final String RETIRED = ROOT + "/retired";
  public static final String PROGRESS = ROOT + "/progress";

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

  public static String offline(String targetId) {
    return OFFLINE + "/" + targetId;
  }

  public static String retired(String targetId) {
    return RETIRED + "/" + targetId;
  }

  public static String progress(String targetId) {
    return PROGRESS + "/" + targetId;
  }
}
