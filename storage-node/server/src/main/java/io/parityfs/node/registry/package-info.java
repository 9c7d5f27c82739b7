/**
 * The node's registration in ZooKeeper: {@link io.parityfs.node.registry.NodeRegistration} keeps
 * the node's znodes current and re-creates the ephemeral record after a session loss. The znode
 * paths and records are the metadata layer's registry schema ({@link io.parityfs.meta.registry}),
 * shared with the readers so that both sides write and read one JSON.
 */
package io.parityfs.node.registry;
