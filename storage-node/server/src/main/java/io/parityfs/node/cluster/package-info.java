/**
 * The storage node's part in the cluster manager ({@code io.parityfs.meta.cluster}): {@link
 * io.parityfs.node.cluster.NodeChunkService}, the manager's chunk I/O over the wire protocol, and
 * what the node needs to run a manager candidate itself ({@code cluster.manager.enabled}).
 */
package io.parityfs.node.cluster;
