/**
 * The client of the storage node protocol, as fs-client and the admin tools use it: {@link
 * io.parityfs.node.client.NodeClient} keeps a pool of pipelined connections per node, applies
 * timeouts, retries idempotent requests, streams chunk data with flow control, and reports
 * failures as {@link io.parityfs.node.client.NodeException} carrying the wire
 * {@link io.parityfs.node.protocol.Status}; {@link io.parityfs.node.client.NodeAdminClient} has
 * the administrative operations over the same connections. Netty and Jackson only: no storage engine on the class path.
 */
package io.parityfs.node.client;
