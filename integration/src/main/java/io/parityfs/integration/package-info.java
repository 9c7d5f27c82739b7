/**
 * The local cluster and the commands around it. {@link io.parityfs.integration.LocalCluster}
 * is a cluster on this machine (ZooKeeper and storage nodes as child JVMs, kept in one folder;
 * {@code parityfs local}), over {@link io.parityfs.integration.ClusterLayout} (the folder, its
 * configuration files and ports), {@link io.parityfs.integration.ProcessSupervisor} (starting,
 * finding, signalling and stopping the child processes) and {@link
 * io.parityfs.integration.ZooKeeperServers}. {@link io.parityfs.integration.LocalCommand} and
 * {@link io.parityfs.integration.DemoCommand} are {@code parityfs local} and {@code parityfs
 * demo}; {@link io.parityfs.integration.ParityFsMain} is the entry point of {@code
 * bin/parityfs}. This module's tests run on such child-process clusters: the end-to-end and
 * fault tests (node, client, drive and ZooKeeper failures, partitions, crashes, restarts, soak)
 * and Hadoop's contract suites.
 */
package io.parityfs.integration;
