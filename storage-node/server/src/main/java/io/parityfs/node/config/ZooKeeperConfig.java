package io.parityfs.node.config;

import java.time.Duration;

/**
 * Where and how the node reaches ZooKeeper.
 *
 * @param connect the ensemble, {@code host:port[,host:port...]}
 * @param chroot a ZooKeeper path under which every ParityFS znode lives ("" for none), e.g.
 *     {@code /prod}: the node then registers under {@code /prod/parityfs/...}
 * @param sessionTimeout the session timeout asked of the server
 * @param connectionTimeout how long a start waits for the first connection
 */
public record ZooKeeperConfig(String connect, String chroot, Duration sessionTimeout,
    Duration connectionTimeout) {}
