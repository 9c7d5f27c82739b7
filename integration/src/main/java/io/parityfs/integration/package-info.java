/**
 * The whole system on one machine: {@link io.parityfs.integration.LocalCluster} lays out and
 * supervises a ZooKeeper and storage nodes as child processes, {@code parityfs local} and {@code
 * parityfs demo} ({@link io.parityfs.integration.LocalCommand}, {@link
 * io.parityfs.integration.DemoCommand}) drive it, and {@link io.parityfs.integration.ParityFsMain}
 * is {@code bin/parityfs}'s entry point. The module's tests are the end-to-end and fault tests
 * (node, client, drive and ZooKeeper failures, partitions, crashes, restarts, soak) against such a
 * child-process cluster.
 */
package io.parityfs.integration;
