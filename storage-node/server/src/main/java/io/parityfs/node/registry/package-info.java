/**
 * The node's registration in ZooKeeper: the znodes ({@link io.parityfs.node.registry.ZkPaths}),
 * their JSON records, and {@link io.parityfs.node.registry.NodeRegistration}, which keeps them
 * current and re-creates the ephemeral record after a session loss.
 */
package io.parityfs.node.registry;
