/**
 * The storage node's wire protocol server: {@link io.parityfs.node.net.NettyNodeServer} serves
 * the protocol of {@code storage-node/protocol} (see {@code docs/protocol.md}) over Netty, against
 * the node's {@link io.parityfs.node.NodeServices}.
 *
 * <p>Threading: event loops only decode, route and encode; every call that may block on the
 * array (open, write, commit, read, stat, delete, list, sync, admin) runs on the node's bounded
 * worker pool. A WRITE's DATA frames are fed to its chunk writer in order by one task at a time;
 * a READ produces one DATA frame at a time and goes on only while the connection is writable.
 * See {@code docs/storage-node.md}, "The server".
 */
package io.parityfs.node.net;
