package io.parityfs.node.cluster;

import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceConfig;
import io.parityfs.meta.cluster.ClusterManager;
import io.parityfs.meta.cluster.ClusterManagerConfig;
import io.parityfs.meta.targets.TargetRegistry;
import io.parityfs.meta.targets.TargetRegistryConfig;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.tls.TlsConfig;
import java.io.Closeable;
import java.io.IOException;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;

/**
 * A storage node's cluster-manager candidate ({@code cluster.manager.enabled}): on the node's own
 * ZooKeeper session it opens a {@link TargetRegistry}, the {@link Namespace} at its default root
 * ({@code /parityfs/ns}, formatted with the defaults if no one has yet and no registered target
 * holds data; where targets do, a missing namespace means ZooKeeper lost it, and the candidate
 * does not start: see {@code NamespaceConfig.IfMissing}), a {@link NodeClient} and
 * a {@link ClusterManager} with a {@link NodeChunkService}, and closes them in reverse order.
 * Every node may run one; the election makes one of them act.
 */
public final class NodeClusterManager implements Closeable {
  private static final System.Logger LOG = System.getLogger(NodeClusterManager.class.getName());

  private final TargetRegistry registry;
  private final Namespace namespace;
  private final NodeClient client;
  private final ClusterManager manager;

  private NodeClusterManager(TargetRegistry registry, Namespace namespace, NodeClient client,
      ClusterManager manager) {
    this.registry = registry;
    this.namespace = namespace;
    this.client = client;
    this.manager = manager;
  }

  /**
   * Starts a candidate on {@code zk} (the node's registration client, chroot applied).
   *
   * @return the candidate, or empty when it could not start (logged; the node serves anyway)
   */
  public static Optional<NodeClusterManager> start(CuratorFramework zk, String nodeId,
      ClusterManagerConfig config, TlsConfig tls) {
    TargetRegistry registry = null;
    Namespace namespace = null;
    NodeClient client = null;
    try {
      registry = TargetRegistry.open(zk, TargetRegistryConfig.DEFAULT);
      namespace = Namespace.open(zk, NamespaceConfig.DEFAULT.toBuilder()
          .ifMissing(NamespaceConfig.IfMissing.FORMAT_IF_NO_DATA).build());
      // towards the other nodes, with the node's own certificate (role node covers a client's)
      client = NodeClient.create(NodeClientConfig.builder().tls(tls).build());
      ClusterManager manager = new ClusterManager(zk, namespace,
          new NodeChunkService(client, registry), registry, config, nodeId);
      manager.start();
      return Optional.of(new NodeClusterManager(registry, namespace, client, manager));
    } catch (IOException | RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "node {0}: cluster manager candidate not started: {1}",
          nodeId, e.toString());
      if (client != null) {
        client.close();
      }
      if (namespace != null) {
        namespace.close();
      }
      if (registry != null) {
        registry.close();
      }
      return Optional.empty();
    }
  }

  /** The candidate (for its status). */
  public ClusterManager manager() {
    return manager;
  }

  @Override
  public void close() {
    manager.close();
    client.close();
    namespace.close();
    registry.close();
  }
}
