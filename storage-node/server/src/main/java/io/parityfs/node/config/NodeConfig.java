package io.parityfs.node.config;

import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.node.metrics.MetricsAccess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A storage node's configuration, parsed from a properties file by {@link NodeConfigParser}
 * (every key is described in {@code conf/storage-node.properties} and {@code
 * docs/storage-node.md}). Immutable.
 *
 * @param source the file it was read from (for messages)
 * @param name the node's display name
 * @param idFile where the node id is kept (also copied onto every target's drives)
 * @param listenHost the address the wire protocol server binds
 * @param listenPort its port (0: any free port)
 * @param advertiseHost the address published in ZooKeeper for clients to connect to
 * @param metricsHost the address of the metrics and health HTTP endpoint
 * @param metricsPort its port (0: any free port; -1: no endpoint)
 * @param zooKeeper the ZooKeeper ensemble
 * @param refreshInterval how often the node's ZooKeeper record is refreshed
 * @param targets the storage targets, at least one, names distinct
 * @param server the network server's settings
 * @param clusterManager whether the node runs a cluster-manager candidate ({@code
 *     cluster.manager.enabled})
 * @param domain the node's failure domain ({@code node.domain}), "" for none
 * @param deadAfter how long a target may stay OFFLINE before this node's cluster manager, when
 *     it leads, declares it bad ({@code cluster.manager.deadAfter}); zero: never
 * @param metricsAccess who may read the metrics endpoint: HTTPS with the node's certificate
 *     ({@code metrics.tls}) and HTTP basic authentication ({@code metrics.basicAuthFile})
 */
public record NodeConfig(Path source, String name, Path idFile, String listenHost, int listenPort,
    String advertiseHost, String metricsHost, int metricsPort, ZooKeeperSettings zooKeeper,
    Duration refreshInterval, List<TargetConfig> targets,
    NodeServerConfig server, boolean clusterManager, String domain, Duration deadAfter,
    MetricsAccess metricsAccess) {
  public NodeConfig {
    metricsAccess = metricsAccess == null ? MetricsAccess.OPEN : metricsAccess;
    deadAfter = deadAfter == null ? Duration.ZERO : deadAfter;
    targets = List.copyOf(targets);
    Objects.requireNonNull(server, "server");
    domain = domain == null ? "" : domain;
  }

  /** A configuration with the network server's defaults. */
  public NodeConfig(Path source, String name, Path idFile, String listenHost, int listenPort,
      String advertiseHost, String metricsHost, int metricsPort, ZooKeeperSettings zooKeeper,
      Duration refreshInterval, List<TargetConfig> targets) {
    this(source, name, idFile, listenHost, listenPort, advertiseHost, metricsHost, metricsPort,
        zooKeeper, refreshInterval, targets, NodeServerConfig.DEFAULT,
        true, "", Duration.ZERO, MetricsAccess.OPEN);
  }
}
