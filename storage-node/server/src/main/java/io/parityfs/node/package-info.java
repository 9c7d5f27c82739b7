/**
 * The storage node service: {@link io.parityfs.node.StorageNode} opens its storage targets (one
 * node-local RAID array each, {@link io.parityfs.node.StorageTarget}), keeps its identity,
 * registers in ZooKeeper and serves metrics and health; {@link io.parityfs.node.cli.NodeCommand} is
 * {@code parityfs node start}. The network server plugs in through {@link
 * io.parityfs.node.NodeServer} and reaches the node through {@link io.parityfs.node.NodeServices}.
 * See {@code docs/storage-node.md}.
 */
package io.parityfs.node;
